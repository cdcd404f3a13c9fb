/**
 * A bare LiveQuery WebSocket client for protocol tests. Frames are built and read with the
 * official SDK's own protobufjs types (`leancloud-realtime/core`), not the server's code.
 */
import { createRequire } from 'node:module';
import WebSocket from 'ws';

const require = createRequire(import.meta.url);

interface SdkMessage {
  toArrayBuffer(): ArrayBuffer;
  toBase64(): string;
}
interface SdkType {
  new (fields: Record<string, unknown>): SdkMessage;
  decode(data: ArrayBuffer | Buffer | string): Record<string, any>;
}
const sdk = require('leancloud-realtime/core') as { Protocals: { GenericCommand: SdkType; CommandType: Record<string, number>; AckCommand: SdkType } };

/** The SDK's command numbers by name. */
export const CommandType = sdk.Protocals.CommandType;
const { GenericCommand, AckCommand } = sdk.Protocals;

/** A raw client: send commands, await answers. */
export interface RawLiveClient {
  readonly ws: WebSocket;
  readonly received: Record<string, any>[];
  send(fields: Record<string, unknown>): void;
  sendRaw(data: Buffer | string): void;
  next(match: (m: Record<string, any>) => boolean, timeoutMs?: number): Promise<Record<string, any>>;
  ack(installationId: string, ids: string[]): void;
  close(): Promise<void>;
}

/** Opens a connection with one subprotocol ('lc.protobuf2.3', 'lc.proto2base64.3' or 'lc.json.3'). */
export async function openRawClient(wsUrl: string, protocol: string): Promise<RawLiveClient> {
  const ws = new WebSocket(wsUrl, protocol);
  const received: Record<string, any>[] = [];
  const waiters = new Set<() => void>();
  ws.on('message', (data, isBinary) => {
    const buf = Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer);
    let m: Record<string, any>;
    if (protocol.startsWith('lc.json')) m = JSON.parse(buf.toString('utf8'));
    else if (isBinary) m = GenericCommand.decode(buf);
    else m = GenericCommand.decode(buf.toString('utf8'));
    received.push(m);
    for (const w of [...waiters]) w();
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
  });
  const send = (fields: Record<string, unknown>) => {
    if (protocol.startsWith('lc.json')) ws.send(JSON.stringify(fields));
    else {
      const cmd = new GenericCommand(fields);
      ws.send(protocol.startsWith('lc.proto2base64') ? cmd.toBase64() : Buffer.from(cmd.toArrayBuffer()));
    }
  };
  return {
    ws,
    received,
    send,
    sendRaw: (data) => ws.send(data),
    next(match, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = received.find(match);
          if (!hit) return false;
          received.splice(received.indexOf(hit), 1);
          waiters.delete(check as () => void);
          clearTimeout(timer);
          resolve(hit);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check as () => void);
          reject(new Error(`no matching message within ${timeoutMs} ms; got ${JSON.stringify(received)}`));
        }, timeoutMs);
        if (!check()) waiters.add(check as () => void);
      });
    },
    ack(installationId, ids) {
      if (protocol.startsWith('lc.json')) send({ cmd: 'ack', installationId, service: 1, ackMessage: { ids } });
      else send({ cmd: CommandType.ack, installationId, service: 1, ackMessage: new AckCommand({ ids }) });
    },
    async close() {
      if (ws.readyState === WebSocket.CLOSED) return;
      await new Promise<void>((resolve) => {
        ws.once('close', () => resolve());
        ws.close();
      });
    },
  };
}
