import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Counter, Histogram, Registry } from 'prom-client';
import { AnswerCounts } from './answer-counts.ts';

const BOUNDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Answers on the bounds, between them, above the last, zero; several families, methods, statuses. */
function answers(): [string, string, number, number][] {
  const out: [string, string, number, number][] = [];
  const families = ['functions', 'classes', 'call'];
  const methods = ['POST', 'GET', 'OTHER'];
  const statuses = [200, 201, 404, 429, 500];
  let x = 7;
  for (let i = 0; i < 600; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    const seconds = i % 7 === 0 ? BOUNDS[i % BOUNDS.length] : i % 11 === 0 ? 12 + (x % 5) : i % 13 === 0 ? 0 : (x % 100000) / 7919;
    out.push([families[x % 3], methods[(x >> 3) % 3], statuses[(x >> 5) % 5], seconds]);
  }
  return out;
}

function byLabels(values: { labels: object; value: number }[]): string[] {
  return values.map((v) => `${JSON.stringify(Object.entries(v.labels).sort())} ${v.value}`).sort();
}

test('the histogram values are what a prom-client Histogram given the same answers exports', async () => {
  const registers = [new Registry()];
  const stock = new Histogram({ name: 'h', help: 'h', labelNames: ['family', 'method'], buckets: BOUNDS, registers });
  const counts = new AnswerCounts(BOUNDS);
  for (const [family, method, status, seconds] of answers()) {
    stock.observe({ family, method }, seconds);
    counts.count(family, method, status, seconds);
  }
  // The same values, labels, names and order (sums added in the same order, bit for bit).
  assert.deepStrictEqual(counts.histogramValues('h'), (await stock.get()).values);
});

test('the counter gets every answer once, across reads, by family, method and status', async () => {
  const registers = [new Registry()];
  const stock = new Counter({ name: 'c', help: 'c', labelNames: ['family', 'method', 'status'], registers });
  const counts = new AnswerCounts(BOUNDS);
  const fed = new Counter({
    name: 'c2', help: 'c', labelNames: ['family', 'method', 'status'], registers,
    collect() {
      counts.flushCounts((labels, n) => this.inc(labels, n));
    },
  });
  const all = answers();
  for (const [i, [family, method, status, seconds]] of all.entries()) {
    stock.inc({ family, method, status: String(status) });
    counts.count(family, method, status, seconds);
    // Reads in between: what was handed over is not handed over again.
    if (i === 100 || i === 101 || i === 450) await fed.get();
  }
  const want = (await stock.get()).values;
  const got = (await fed.get()).values;
  assert.deepStrictEqual(byLabels(got), byLabels(want));
  assert.equal(got.reduce((n, v) => n + v.value, 0), all.length);
  // A read with nothing new changes nothing.
  assert.deepStrictEqual(byLabels((await fed.get()).values), byLabels(want));
});

test('reset forgets the histogram series', () => {
  const counts = new AnswerCounts(BOUNDS);
  counts.count('functions', 'POST', 200, 0.002);
  assert.equal(counts.histogramValues('h').length, BOUNDS.length + 3);
  counts.reset();
  assert.deepStrictEqual(counts.histogramValues('h'), []);
});
