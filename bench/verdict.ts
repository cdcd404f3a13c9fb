import type { CounterCheck } from './counters.ts';
import type { DirectRunResult } from './direct-load.ts';
import type { HttpRunResult } from './http-load.ts';
import type { PlanReport } from './plan-check.ts';
import type { Target, Workload } from './workloads.ts';

/** Pass, MISSED (a target not reached), ERROR (could not measure), or no target. */
export type Outcome = 'pass' | 'MISSED' | 'ERROR' | '-';

/** One row of the results table, already formatted. */
export interface ResultRow {
  workload: string;
  larder: string;
  larderLatency: string;
  direct: string;
  directLatency: string;
  ratio: string;
  target: string;
  outcome: Outcome;
  /** Why it failed or what to know, printed under the table. */
  notes: string[];
}

/** Everything measured for one workload. */
export interface WorkloadMeasurement {
  workload: Workload;
  larder?: HttpRunResult;
  direct?: DirectRunResult;
  /** Set when the workload could not be measured (sanity check or load failure). */
  error?: string;
  plan?: PlanReport;
  counters?: CounterCheck[];
}

/** A whole number with thousands separators. */
export function fmtInt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** Milliseconds with a precision that suits their size. */
export function fmtMs(n: number): string {
  return n >= 10 ? n.toFixed(0) : n.toFixed(1);
}

function unit(w: Workload): string {
  return w.objectsPerOp > 1 ? 'obj/s' : 'req/s';
}

function targetText(t: Target): string {
  switch (t.kind) {
    case 'ratio': return `>= ${t.min} of direct`;
    case 'absolute': return `>= ${fmtInt(t.min)} ${t.unit}`;
    case 'index-plan': return 'index-friendly plan';
    case 'no-lost-increments': return 'no lost increments';
    case 'none': return '-';
    case 'relative': return `>= ${t.min} of ${t.to}`;
  }
}

function planOutcome(plan: PlanReport | undefined, notes: string[]): Outcome {
  if (!plan) {
    notes.push('the plan of Larder\'s count statement could not be obtained');
    return 'ERROR';
  }
  const problems: string[] = [];
  if (plan.filterFunctions.length) problems.push(`per-row function(s) in the filter: ${plan.filterFunctions.join(', ')}`);
  if (!plan.fieldIndexesUsed.length) problems.push('no index on the field can serve it even with sequential scans disabled');
  if (problems.length) notes.push(`count with $in: ${problems.join('; ')}`);
  return problems.length ? 'MISSED' : 'pass';
}

/** Applies the workload's target to what was measured (`all`: the run's other measurements, for relative targets). */
export function judge(m: WorkloadMeasurement, _index = 0, all: readonly WorkloadMeasurement[] = []): ResultRow {
  const w = m.workload;
  const notes: string[] = [];
  const row: ResultRow = { workload: w.title, larder: '-', larderLatency: '-', direct: '-', directLatency: '-', ratio: '-', target: targetText(w.target), outcome: '-', notes };
  if (m.error) {
    notes.push(`${w.title}: ${m.error}`);
    return { ...row, outcome: 'ERROR' };
  }
  const l = m.larder;
  const d = m.direct;
  const lRate = l ? l.perSec * w.objectsPerOp : 0;
  const dRate = d ? d.perSec * w.objectsPerOp : 0;
  if (l) {
    row.larder = `${fmtInt(lRate)} ${unit(w)}`;
    row.larderLatency = `${fmtMs(l.p50Ms)} / ${fmtMs(l.p99Ms)}`;
    if (l.ok === 0) notes.push(`${w.title}: no request completed within the ${l.durationSec} s run (${l.sent} sent); use a longer --duration`);
    const bad = l.non2xx + l.errors + l.hiddenErrors;
    if (bad) notes.push(`${w.title}: Larder had ${l.non2xx} non-2xx answers ${JSON.stringify(l.statuses)}, ${l.errors} socket errors, ${l.hiddenErrors} failed batch items`);
  }
  if (d) {
    row.direct = `${fmtInt(dRate)} ${unit(w)}`;
    row.directLatency = `${fmtMs(d.p50Ms)} / ${fmtMs(d.p99Ms)}`;
    if (d.failed) notes.push(`${w.title}: direct side had ${d.failed} failures, first: ${d.firstError}`);
  }
  if (l && d && dRate > 0) row.ratio = (lRate / dRate).toFixed(2);
  const t = w.target;
  const failedRequests = l ? l.non2xx + l.errors + l.hiddenErrors > 0 : true;
  switch (t.kind) {
    case 'ratio':
      row.outcome = l && d && !failedRequests && lRate / dRate >= t.min ? 'pass' : 'MISSED';
      break;
    case 'absolute':
      row.outcome = l && !failedRequests && lRate >= t.min ? 'pass' : 'MISSED';
      break;
    case 'index-plan':
      row.outcome = planOutcome(m.plan, notes);
      if (failedRequests) row.outcome = 'MISSED';
      break;
    case 'no-lost-increments': {
      const checks = m.counters ?? [];
      for (const c of checks) {
        if (!c.ok) notes.push(`${w.title}: counter grew by ${c.grew}, ${c.acknowledged} increments acknowledged (${c.sent} sent, ${c.exact ? 'exact run' : 'timed run'})`);
      }
      row.outcome = checks.length && checks.every((c) => c.ok) && !failedRequests ? 'pass' : 'MISSED';
      break;
    }
    case 'none':
      row.outcome = failedRequests ? 'MISSED' : '-';
      break;
    case 'relative': {
      const base = all.find((x) => x.workload.key === t.to)?.larder;
      const share = l && base && base.perSec > 0 ? l.perSec / base.perSec : undefined;
      if (share === undefined) notes.push(`${w.title}: no measurement of ${t.to} to compare with`);
      else notes.push(`${w.title}: ${share.toFixed(2)} of ${t.to} (target >= ${t.min})`);
      row.outcome = share !== undefined && !failedRequests && share >= t.min ? 'pass' : 'MISSED';
      break;
    }
  }
  return row;
}
