/**
 * Frames of the three WebSocket subprotocols (spec leancloud-services.md §4): `lc.protobuf2.3`
 * (binary GenericCommand), `lc.proto2base64.3` (the same bytes as base64 text: the JS SDK with
 * `noBinary`) and `lc.json.3` (GenericCommand in protobuf's JSON mapping: the C# SDK). The `.1`
 * variants (the SDK's `pushOfflineMessages`) differ only in IM behaviour and are accepted too.
 */
import { CMD, CommandType, GenericCommand, OpType, type Command } from './messages.ts';

/** How a connection's frames are written. */
export type FrameFormat = 'protobuf2' | 'proto2base64' | 'json';

/** Subprotocols offered, best first: the server picks the first one the client lists. */
export const SUBPROTOCOLS: readonly string[] = ['lc.protobuf2.3', 'lc.proto2base64.3', 'lc.json.3', 'lc.protobuf2.1', 'lc.proto2base64.1', 'lc.json.1'];

/** The format of a negotiated subprotocol, or undefined for one this server does not speak. */
export function formatOf(protocol: string): FrameFormat | undefined {
  const m = /^lc\.(protobuf2|proto2base64|json)\.[13]$/.exec(protocol);
  return m ? (m[1] as FrameFormat) : undefined;
}

/** The client's subprotocol choice among those offered in the upgrade request. */
export function chooseSubprotocol(offered: Iterable<string>): string | undefined {
  const list = [...offered];
  return SUBPROTOCOLS.find((p) => list.includes(p));
}

/** A client frame that is not a GenericCommand (or not in the connection's format). */
export class FrameError extends Error {}

const TO_OBJECT: Parameters<typeof GenericCommand.toObject>[1] = { longs: Number, enums: Number, defaults: false, arrays: false };

/** Decodes one client frame. Throws FrameError for anything that is not a command. */
export function decodeFrame(format: FrameFormat, data: Buffer, isBinary: boolean): Command {
  try {
    if (format === 'protobuf2') {
      if (!isBinary) throw new FrameError('expected a binary frame');
      return GenericCommand.toObject(GenericCommand.decode(data), TO_OBJECT) as Command;
    }
    if (format === 'proto2base64') {
      const text = data.toString('utf8').trim();
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) throw new FrameError('expected base64 text');
      return GenericCommand.toObject(GenericCommand.decode(Buffer.from(text, 'base64')), TO_OBJECT) as Command;
    }
    const parsed: unknown = JSON.parse(data.toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new FrameError('expected a JSON object');
    // The C# SDK's heartbeat is the text `{}`: an empty command, answered in kind.
    const normalized = jsonMapping(parsed as Record<string, unknown>);
    const problem = GenericCommand.verify(normalized);
    if (problem) throw new FrameError(problem);
    return GenericCommand.toObject(GenericCommand.fromObject(normalized), TO_OBJECT) as Command;
  } catch (err) {
    if (err instanceof FrameError) throw err;
    throw new FrameError(err instanceof Error ? err.message : 'undecodable frame');
  }
}

/**
 * protobuf's JSON mapping as protobufjs' verify() expects it: enum names of `cmd` and `op` to
 * their numbers, 64-bit integers written as strings (proto3 JSON) to numbers.
 */
function jsonMapping(v: Record<string, unknown>): Record<string, unknown> {
  const out = { ...v };
  for (const [field, values] of [['cmd', CommandType], ['op', OpType]] as const) {
    const x = out[field];
    if (typeof x !== 'string') continue;
    const n = values[x];
    if (typeof n !== 'number') throw new FrameError(`${field}: unknown value ${JSON.stringify(x.slice(0, 40))}`);
    out[field] = n;
  }
  for (const field of ['serverTs', 'clientTs']) {
    const x = out[field];
    if (typeof x === 'string' && /^-?\d{1,19}$/.test(x)) out[field] = Number(x);
  }
  return out;
}

/** Encodes one server command for a connection's format: a Buffer for binary frames, else text. */
export function encodeFrame(format: FrameFormat, command: Command): Buffer | string {
  if (format === 'json') {
    return JSON.stringify(GenericCommand.toObject(GenericCommand.fromObject(command), { longs: Number, enums: String, defaults: false }));
  }
  // protobufjs encodes plain objects of the message's shape: the commands built here hold
  // numbers for enums and strings for strings, so fromObject's conversion (a copy of every
  // field, once per push) is not needed for the binary formats.
  const written = GenericCommand.encode(command).finish();
  const bytes = Buffer.from(written.buffer, written.byteOffset, written.byteLength);
  return format === 'protobuf2' ? bytes : bytes.toString('base64');
}

/** An `error` command answering request `i` (or unsolicited when `i` is absent). */
export function errorCommand(code: number, reason: string, i?: number): Command {
  const cmd: Command = { cmd: CMD.error, errorMessage: { code, reason } };
  if (i !== undefined) cmd.i = i;
  return cmd;
}
