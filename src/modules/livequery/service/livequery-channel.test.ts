import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseChannelMessage, senderPrefix } from './livequery-channel.ts';

test('channel: a sender recognises its own messages by their prefix, and only its own', () => {
  const base = { s: 'app"schema', from: '12-abc' };
  const own = JSON.stringify({ ...base, k: 'push', e: [{ n: '1', i: 'x', m: '{}' }] });
  assert.ok(own.startsWith(senderPrefix(base.s, base.from)));
  assert.equal(parseChannelMessage(own)?.from, base.from);
  for (const other of [{ s: base.s, from: '12-abcd' }, { s: base.s, from: '12-ab' }, { s: 'appschema', from: base.from }]) {
    assert.ok(!JSON.stringify({ ...other, k: 'subs', q: ['q'] }).startsWith(senderPrefix(base.s, base.from)));
  }
});
