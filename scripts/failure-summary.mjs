import { writeFileSync } from 'node:fs';

// A node:test reporter that prints nothing while tests run and, at the end, one block per failed
// test: file, the names from suite to test, and the error. CI shows only the tail of the output,
// where TAP's inline failures may have scrolled away; this summary sits after the totals.
export default async function* failureSummary(source) {
  const failures = [];
  const failedFiles = new Set();
  // Files run two at a time, so their events interleave: one stack of names per file.
  const stacks = new Map();
  for await (const event of source) {
    const stack = stacks.get(event.data?.file) ?? [];
    stacks.set(event.data?.file, stack);
    if (event.type === 'test:start') {
      stack[event.data.nesting] = event.data.name;
      stack.length = event.data.nesting + 1;
    }
    if (event.type !== 'test:fail') continue;
    const { data } = event;
    const error = data.details?.error;
    // A suite fails when a test in it fails; its own entry adds nothing.
    if (error?.failureType === 'subtestsFailed') continue;
    const path = [...stack.slice(0, data.nesting), data.name].filter(Boolean).join(' > ');
    const cause = error?.cause ?? error;
    const text = String(cause?.stack ?? cause?.message ?? cause ?? 'failed').split('\n').slice(0, 12).join('\n');
    failedFiles.add(data.file);
    failures.push(`- ${data.file ?? '?'}\n  ${path}\n${text.replace(/^/gm, '    ')}`);
  }
  // scripts/test.mjs reruns the files that failed (a failure without a file is a crash of the
  // runner itself: no rerun helps then, so the list is left empty and the run fails).
  const list = process.env.LARDER_TEST_FAILED_FILES;
  if (list) writeFileSync(list, JSON.stringify(failedFiles.has(undefined) ? [] : [...failedFiles]));
  if (!failures.length) return;
  yield `\n# ${failures.length} failing test(s):\n`;
  for (const f of failures) yield `${f}\n`;
}
