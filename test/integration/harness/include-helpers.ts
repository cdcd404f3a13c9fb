import assert from 'node:assert/strict';
import type { Harness } from './engines.ts';

// What the include tests (include-*.test.ts) share: their objects' owners, making objects, and the
// answer to compare with.

/** A Pointer to a user, as an object's `owner` field holds it. */
export function userPointer(objectId: string): { __type: 'Pointer'; className: '_User'; objectId: string } {
  return { __type: 'Pointer', className: '_User', objectId };
}

/** Creates an object with the master key (201 asserted) and returns its objectId. */
export async function seedObject(h: Harness, className: string, body: Record<string, unknown>): Promise<string> {
  const res = await h.client.post(`/1.1/classes/${className}`, body, { master: true });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.objectId;
}

/**
 * The same query through a batch, whose GET answers always take the parsing path (findObjects),
 * which reads the included objects on their own: the answer a spliced or cached one must equal.
 */
export async function parsedAnswer(h: Harness, className: string, params: Record<string, string>, master: boolean): Promise<unknown> {
  const res = await h.client.post('/1.1/batch', { requests: [{ method: 'GET', path: `/1.1/classes/${className}`, params }] }, { master });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.ok(res.body[0].success, JSON.stringify(res.body));
  return res.body[0].success;
}
