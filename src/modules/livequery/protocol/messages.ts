/**
 * The realtime protocol's messages (`push_server.messages2`), loaded with protobufjs from the
 * definitions the official SDK ships (realtime-messages.json, extracted from the npm package
 * `leancloud-realtime` by scripts/extract-realtime-messages.mjs). Nothing here decodes bytes by
 * hand: every frame goes through these protobufjs types.
 */
import { readFileSync } from 'node:fs';
import protobuf from 'protobufjs';

const definitions: unknown = JSON.parse(readFileSync(new URL('./realtime-messages.json', import.meta.url), 'utf8'));
const root = protobuf.Root.fromJSON(definitions as protobuf.INamespace);

/** The envelope of every frame in both directions. */
export const GenericCommand: protobuf.Type = root.lookupType('push_server.messages2.GenericCommand');

/** Command numbers (`cmd`) by name, as the SDK's enum declares them. */
export const CommandType: Readonly<Record<string, number>> = root.lookupEnum('push_server.messages2.CommandType').values;

/** Operation numbers (`op`) by name. */
export const OpType: Readonly<Record<string, number>> = root.lookupEnum('push_server.messages2.OpType').values;

/** The commands this server reads or writes (numbers from the SDK's enum, checked at load). */
export const CMD = {
  session: commandNumber('session'),
  ack: commandNumber('ack'),
  error: commandNumber('error'),
  login: commandNumber('login'),
  data: commandNumber('data'),
  echo: commandNumber('echo'),
  loggedin: commandNumber('loggedin'),
  logout: commandNumber('logout'),
  loggedout: commandNumber('loggedout'),
  goaway: commandNumber('goaway'),
} as const;

function commandNumber(name: string): number {
  const n = CommandType[name];
  if (typeof n !== 'number') throw new Error(`realtime-messages.json has no command ${name}`);
  return n;
}

/** The fields of a GenericCommand this server uses, as plain values (other fields are kept as they come). */
export interface Command {
  cmd?: number;
  op?: number;
  appId?: string;
  peerId?: string;
  i?: number;
  installationId?: string;
  service?: number;
  serverTs?: number;
  clientTs?: number;
  dataMessage?: { ids?: string[]; msg?: { data: string }[]; offline?: boolean };
  errorMessage?: { code: number; reason: string; appCode?: number; detail?: string };
  ackMessage?: { ids?: string[]; code?: number; reason?: string };
  [other: string]: unknown;
}
