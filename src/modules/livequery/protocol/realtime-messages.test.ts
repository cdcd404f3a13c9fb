import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
// @ts-expect-error: a plain .mjs script without type declarations
import { captureDescriptor, toNamespace } from '../../../../scripts/extract-realtime-messages.mjs';

test('realtime-messages.json is what the installed leancloud-realtime ships (run scripts/extract-realtime-messages.mjs after an upgrade)', () => {
  const stored: unknown = JSON.parse(readFileSync(new URL('./realtime-messages.json', import.meta.url), 'utf8'));
  assert.deepEqual(stored, toNamespace(captureDescriptor()));
});
