/**
 * One HTTP request whose answer is read as text, for the file benches (files-big-probe.ts,
 * floor-variants.ts): a body given as a string or buffer is sent whole, a stream is piped.
 */
import { type Agent, request } from 'node:http';
import { Readable } from 'node:stream';

export function textRequest(agent: Agent, url: string, method: string, headers: Record<string, string>, body?: Buffer | string | Readable): Promise<{ status: number; body: string }> {
  return new Promise((done, fail) => {
    const req = request(url, { method, headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => done({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', fail);
    if (body instanceof Readable) body.pipe(req);
    else req.end(body);
  });
}
