// Helpers of the export tests: wait for a job, download its archive through the server, and
// read the .tar.gz back into entries and JSON Lines (header line + rows).
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { extract } from 'tar-stream';
import type { Harness } from './engines.ts';

/** A job status answer. */
export interface JobStatus {
  status: string;
  id: string;
  app_id: string;
  download_url?: string;
  reason?: string;
}

/** Polls GET /1.1/exportData/<id> until the job is no longer running. */
export async function waitJob(h: Harness, id: string, timeoutMs = 60_000): Promise<JobStatus> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const res = await h.client.get(`/1.1/exportData/${id}`, undefined, { master: true });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    if (res.body.status !== 'running') return res.body as JobStatus;
    if (Date.now() > end) throw new Error(`export ${id} still running after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Starts an export with `params` and waits for it. */
export async function exportAndWait(h: Harness, params: Record<string, unknown>): Promise<JobStatus> {
  const res = await h.client.post('/1.1/exportData', params, { master: true });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return waitJob(h, res.body.id);
}

/** Unpacks a .tar.gz into a map of entry name -> text. */
export async function untar(archive: Buffer): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const ex = extract();
  const done = new Promise<void>((resolve, reject) => {
    ex.on('entry', (header, stream, next) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: unknown) => chunks.push(Buffer.from(c as Uint8Array)));
      stream.on('end', () => {
        out.set(header.name, Buffer.concat(chunks).toString('utf8'));
        next();
      });
      stream.on('error', reject);
    });
    ex.on('finish', resolve);
    ex.on('error', reject);
  });
  Readable.from([archive]).pipe(createGunzip()).pipe(ex);
  await done;
  return out;
}

/** Downloads a job's archive through the server (in-process) and unpacks it. */
export async function downloadArchive(h: Harness, downloadUrl: string): Promise<{ entries: Map<string, string>; headers: Record<string, unknown>; bytes: number }> {
  const url = new URL(downloadUrl);
  const res = await h.server.inject({ method: 'GET', url: url.pathname + url.search });
  assert.equal(res.statusCode, 200, res.body);
  return { entries: await untar(res.rawPayload), headers: res.headers, bytes: res.rawPayload.length };
}

/** A JSON Lines entry: its header line (parsed after the prefix) and its rows. */
export function readJsonl(text: string): { header: Record<string, unknown>; rows: Record<string, any>[] } {
  const lines = text.split('\n');
  assert.equal(lines.pop(), '', 'the file ends with a newline');
  const first = lines.shift() ?? '';
  const prefix = '#filetype:JSON-streaming ';
  assert.ok(first.startsWith(prefix), first);
  return { header: JSON.parse(first.slice(prefix.length)), rows: lines.map((l) => JSON.parse(l)) };
}
