/**
 * `node bench/forward-larder-client.mjs <port> <engine base URL>`: bench/forward-floor.mjs with
 * Larder's own engine client (dist/cloud/engine-client.js: keep-alive pool, deadline timer,
 * answer parser) and the function fast path's per-call steps (the forwarded headers, the address
 * headers, the answer read whole and written as one latin1 string), in a process that loads
 * nothing else of Larder. For `bench/cloud-cpu.ts --forwarder`: next to the floor and Larder in
 * the same rounds, it splits Larder's CPU per call into what its engine client costs and what the
 * rest of the server costs (docs/benchmarks.md, "Cloud code"). Needs `npm run build`.
 */
import http from 'node:http';
import { EngineClient } from '../dist/cloud/engine-client.js';

const [port, base] = process.argv.slice(2);
const client = new EngineClient(base);
const FORWARDED = new Set(['content-type', 'user-agent', 'accept-language', 'x-lc-id', 'x-lc-key', 'x-lc-sign', 'x-lc-session', 'x-lc-prod', 'x-lc-ua', 'x-lc-hook-key']);
const small = (head) => Number(head.headers['content-length']) < 1024;

http
  .createServer((req, res) => {
    const h = req.headers;
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      chunks.push(c);
      size += c.length;
    });
    req.on('end', () => {
      const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
      const headers = {};
      for (const n in h) if (FORWARDED.has(n)) headers[n] = h[n];
      headers['content-length'] = String(body.length);
      const peer = req.socket.remoteAddress ?? '';
      headers['x-forwarded-for'] = peer;
      headers['x-real-ip'] = peer;
      const send = (answer) => {
        if (!('whole' in answer)) return res.destroy();
        const out = {};
        if (answer.headers['content-type'] !== undefined) out['content-type'] = answer.headers['content-type'];
        out['access-control-allow-origin'] = '*';
        out['content-length'] = String(answer.whole.length);
        res.writeHead(answer.status, out);
        res.end(answer.whole.toString('latin1'), 'latin1');
      };
      const call = { method: 'POST', path: req.url, headers, body, timeoutMs: 15000 };
      // The fast path's callback (`exchange`) where the build has it, else the promise (`open`).
      if (typeof client.exchange === 'function') client.exchange(call, small, (err, answer) => (err ? res.destroy() : send(answer)));
      else client.open(call, small).then(send, () => res.destroy());
    });
  })
  .listen(Number(port), '127.0.0.1', () => console.log(`forwarder with Larder's engine client on ${port}`));
