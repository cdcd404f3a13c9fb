import assert from 'node:assert/strict';
import { PassThrough, Readable, Writable } from 'node:stream';
import { test } from 'node:test';
import { pumpInto } from './pump-into.ts';

const collector = (fail?: Error) => {
  const got: Buffer[] = [];
  const sink = new Writable({ highWaterMark: 4, write(c: Buffer, _e, cb) { if (fail) return cb(fail); got.push(c); setImmediate(cb); } });
  return { sink, got };
};

test('every chunk reaches the sink, in order, before it resolves', async () => {
  const { sink, got } = collector();
  await pumpInto(Readable.from([Buffer.from('a'), Buffer.from('bc'), Buffer.from('d')]), sink);
  assert.equal(Buffer.concat(got).toString(), 'abcd');
});

test('a sink that fails: rejects with its error and destroys the body', async () => {
  const body = new PassThrough();
  const { sink } = collector(new Error('too large'));
  const done = pumpInto(body, sink);
  body.write('x');
  await assert.rejects(done, /too large/);
  assert.equal(body.destroyed, true);
});

test('a body that fails or closes before its end: rejects and destroys the sink', async () => {
  const failing = new PassThrough();
  const a = collector();
  const done = pumpInto(failing, a.sink);
  failing.destroy(new Error('client left'));
  await assert.rejects(done, /client left/);
  assert.equal(a.sink.destroyed, true);
  const cut = new PassThrough();
  const b = collector();
  const closed = pumpInto(cut, b.sink);
  cut.destroy();
  await assert.rejects(closed, { code: 'ERR_STREAM_PREMATURE_CLOSE' });
  assert.equal(b.sink.destroyed, true);
});
