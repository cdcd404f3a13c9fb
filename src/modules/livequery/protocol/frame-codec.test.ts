/**
 * The server's frames against the official SDK's own protobufjs build: what the SDK encodes,
 * the server decodes, and the other way round, in each subprotocol.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { chooseSubprotocol, decodeFrame, encodeFrame, FrameError, formatOf } from './frame-codec.ts';
import { CMD } from './messages.ts';

const require = createRequire(import.meta.url);
// eslint-disable-next-line @typescript-eslint/no-require-imports
const sdk = require('leancloud-realtime/core') as { Protocals: { GenericCommand: SdkType; CommandType: Record<string, number>; AckCommand: SdkType } };
interface SdkMessage {
  toArrayBuffer(): ArrayBuffer;
  toBase64(): string;
  [k: string]: unknown;
}
interface SdkType {
  new (fields: Record<string, unknown>): SdkMessage;
  decode(data: ArrayBuffer | Buffer | string): SdkMessage & Record<string, any>;
}
const { GenericCommand: SdkCommand, CommandType, AckCommand } = sdk.Protocals;

test('frames: the SDK login, as binary and as base64, decodes to the same command', () => {
  const login = new SdkCommand({ cmd: CommandType.login, appId: 'app', installationId: 'sub-1', service: 1, i: 7, clientTs: 1700000000000 });
  const expected = { cmd: CMD.login, appId: 'app', installationId: 'sub-1', service: 1, i: 7, clientTs: 1700000000000 };
  assert.deepEqual(decodeFrame('protobuf2', Buffer.from(login.toArrayBuffer()), true), expected);
  assert.deepEqual(decodeFrame('proto2base64', Buffer.from(login.toBase64()), false), expected);
});

test('frames: the SDK ack carries its ids', () => {
  const ack = new SdkCommand({ cmd: CommandType.ack, installationId: 's', service: 1, ackMessage: new AckCommand({ ids: ['12', '13'] }) });
  const got = decodeFrame('protobuf2', Buffer.from(ack.toArrayBuffer()), true);
  assert.equal(got.cmd, CMD.ack);
  assert.deepEqual(got.ackMessage?.ids, ['12', '13']);
});

test('frames: a data push decodes in the SDK as the plugin reads it', () => {
  const push = { cmd: CMD.data, installationId: 'sub-1', service: 1, dataMessage: { ids: ['42'], msg: [{ data: '{"op":"create"}' }] } };
  for (const [format, frame] of [['protobuf2', encodeFrame('protobuf2', push)], ['proto2base64', encodeFrame('proto2base64', push)]] as const) {
    const m = SdkCommand.decode(frame as Buffer | string);
    assert.equal(m.cmd, CommandType.data, format);
    assert.equal(m.installationId, 'sub-1');
    assert.equal(m.service, 1);
    assert.deepEqual(m.dataMessage.ids, ['42']);
    assert.equal(m.dataMessage.msg[0].data, '{"op":"create"}');
  }
});

test('frames: loggedin and error answers keep the request serial', () => {
  const ok = SdkCommand.decode(encodeFrame('protobuf2', { cmd: CMD.loggedin, i: 3 }) as Buffer);
  assert.equal(ok.cmd, CommandType.loggedin);
  assert.equal(ok.i, 3);
  const err = SdkCommand.decode(encodeFrame('protobuf2', { cmd: CMD.error, i: 4, errorMessage: { code: 4100, reason: 'Unknown appId.' } }) as Buffer);
  assert.equal(err.errorMessage.code, 4100);
  assert.equal(err.i, 4);
});

test('frames: lc.json.3 uses protobuf JSON (enum names out, names or numbers in)', () => {
  assert.equal(encodeFrame('json', { cmd: CMD.loggedin, i: 1 }), '{"cmd":"loggedin","i":1}');
  assert.deepEqual(decodeFrame('json', Buffer.from('{"cmd":"login","i":1,"appId":"a","installationId":"s","service":1}'), false), { cmd: CMD.login, i: 1, appId: 'a', installationId: 's', service: 1 });
  assert.deepEqual(decodeFrame('json', Buffer.from('{"cmd":14,"i":2}'), false), { cmd: CMD.echo, i: 2 });
  assert.deepEqual(decodeFrame('json', Buffer.from('{}'), false), {});
});

test('frames: hostile input is a FrameError, never a crash', () => {
  const bad: [Parameters<typeof decodeFrame>[0], Buffer, boolean][] = [
    ['protobuf2', Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff]), true],
    ['protobuf2', Buffer.from('text'), false],
    ['proto2base64', Buffer.from('not base64!'), false],
    ['json', Buffer.from('[1,2]'), false],
    ['json', Buffer.from('{"cmd":"nope"}'), false],
    ['json', Buffer.from('{"i":"x"}'), false],
    ['json', Buffer.from('{'), false],
  ];
  for (const [format, data, binary] of bad) assert.throws(() => decodeFrame(format, data, binary), FrameError, `${format} ${data.toString('hex')}`);
});

test('subprotocols: the first one the server speaks is chosen', () => {
  assert.equal(chooseSubprotocol(['lc.protobuf2.3']), 'lc.protobuf2.3');
  assert.equal(chooseSubprotocol(['x', 'lc.json.3']), 'lc.json.3');
  assert.equal(chooseSubprotocol(['lc.protobuf.1']), undefined);
  assert.equal(formatOf('lc.proto2base64.3'), 'proto2base64');
  assert.equal(formatOf('lc.protobuf2.1'), 'protobuf2');
  assert.equal(formatOf('lc.msgpack.3'), undefined);
});
