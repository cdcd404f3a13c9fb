import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AppContext } from '../../../module-api/context.ts';
import { toLive, type LiveSubscription } from '../store/subscription-registry.ts';
import type { LiveOp } from './classify.ts';
import { leftObject, pushPayload, PushTexts, type PushedObject, visibleObject, visibleUpdatedKeys } from './push-payload.ts';

// Only what the push view reads of an app: its settings.
function appWith(includeACLInQueries: boolean): AppContext {
  return { settings: { includeACLInQueries, clientInvisibleFields: { _User: ['email'] } } } as unknown as AppContext;
}

function sub(queryId: string, className: string, extra: { keys?: string; returnACL?: boolean } = {}): LiveSubscription {
  const s = toLive({ queryId, subscriptionId: 's', query: { className, where: {}, returnACL: extra.returnACL === true, ...(extra.keys ? { keys: extra.keys } : {}) } });
  if (!s) throw new Error('subscription did not parse');
  return s;
}

test('push texts: one serialisation per view, each text equal to the push built on its own', () => {
  const before = { objectId: 'o1', name: 'a', email: 'a@x', password: 'h', ACL: { '*': { read: true } }, updatedAt: '2026-01-01T00:00:00.000Z' };
  const after = { ...before, name: 'b', sessionToken: 't', updatedAt: '2026-01-02T00:00:00.000Z' };
  const updatedKeys = ['name', 'email', 'sessionToken'];
  for (const acl of [false, true]) {
    const app = appWith(acl);
    const texts = new PushTexts(app, before, after, updatedKeys);
    const subs = [sub('q1', '_User'), sub('q2', '_User', { keys: 'name' }), sub('q3', '_User', { returnACL: true }), sub('q4', '_User'), sub('q5', '_User', { keys: 'name,email' })];
    const cases: [LiveOp, PushedObject][] = [['create', 'after'], ['update', 'after'], ['enter', 'after'], ['leave', 'after'], ['leave', 'left'], ['delete', 'before'], ['login', 'after']];
    for (const s of subs) {
      for (const [op, which] of cases) {
        const object = which === 'before' ? visibleObject(app, s, before) : which === 'left' ? leftObject(s, after) : visibleObject(app, s, after);
        const expected = pushPayload(s, op, object, visibleUpdatedKeys(app, s, updatedKeys));
        assert.equal(texts.text(s, op, which), expected, `${s.queryId} ${op} ${which} includeACL=${acl}`);
      }
    }
    const pushed = JSON.parse(texts.text(subs[0], 'update', 'after')) as { object: Record<string, unknown>; updatedKeys: string[] };
    assert.deepEqual(pushed.updatedKeys, ['name']);
    assert.equal(pushed.object.password, undefined);
    assert.equal(pushed.object.email, undefined);
    assert.equal(pushed.object.sessionToken, undefined);
  }
});
