import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { EngineCallError } from './engine-call-error.ts';
import { EngineClient, type StreamedAnswer, type WholeAnswer } from './engine-client.ts';

/** A one-answer-per-request engine on a raw socket: `answer` gets each request's bytes. */
async function engine(answer: (request: string, socket: net.Socket) => void): Promise<{ url: string; requests: string[]; close: () => Promise<void> }> {
  const requests: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('data', (chunk) => {
      requests.push(chunk.toString('latin1'));
      answer(chunk.toString('latin1'), socket);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

interface Outcome {
  calls: number;
  sync: boolean;
  err?: Error;
  answer?: StreamedAnswer | WholeAnswer;
}

/** Runs `exchange` and waits for its callback (and a little longer, to see a second call). */
async function exchange(client: EngineClient, body: Buffer, headers: Record<string, string>, timeoutMs = 2000): Promise<Outcome> {
  const out: Outcome = { calls: 0, sync: false };
  let returned = false;
  await new Promise<void>((resolve) => {
    client.exchange({ method: 'POST', path: '/1.1/functions/hello', headers, body, timeoutMs }, (h) => Number(h.headers['content-length']) < 1024, (err, answer) => {
      out.calls++;
      out.sync = !returned;
      out.err = err;
      out.answer = answer;
      resolve();
    });
    returned = true;
  });
  await new Promise((r) => setTimeout(r, 50));
  return out;
}

const OK = 'HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: 15\r\nConnection: keep-alive\r\n\r\n{"result":"hi"}';

test('exchange: a small answer read whole, the request in one piece, the connection reused', async () => {
  const e = await engine((_req, socket) => socket.write(OK));
  const client = new EngineClient(e.url);
  try {
    const first = await exchange(client, Buffer.from('{"a":1}'), { 'content-type': 'application/json', 'x-lc-id': 'app' });
    assert.equal(first.calls, 1);
    assert.equal(first.err, undefined);
    const answer = first.answer as WholeAnswer;
    assert.equal(answer.status, 200);
    assert.equal(answer.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(answer.whole.toString(), '{"result":"hi"}');
    assert.equal(e.requests[0], `POST /1.1/functions/hello HTTP/1.1\r\nhost: ${new URL(e.url).host}\r\ncontent-type: application/json\r\nx-lc-id: app\r\ncontent-length: 7\r\nconnection: keep-alive\r\n\r\n{"a":1}`);
    const second = await exchange(client, Buffer.from('{}'), {});
    assert.equal((second.answer as WholeAnswer).whole.toString(), '{"result":"hi"}');
    assert.equal(e.requests.length, 2);
  } finally {
    client.close();
    await e.close();
  }
});

test('exchange: a large answer is streamed, not read whole', async () => {
  const big = 'x'.repeat(2000);
  const e = await engine((_req, socket) => socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${big.length}\r\n\r\n${big}`));
  const client = new EngineClient(e.url);
  try {
    const out = await exchange(client, Buffer.from('{}'), {});
    assert.equal(out.calls, 1);
    const answer = out.answer as StreamedAnswer;
    assert.ok(!('whole' in answer));
    let text = '';
    for await (const chunk of answer.body) text += String(chunk);
    answer.done();
    assert.equal(text, big);
  } finally {
    client.close();
    await e.close();
  }
});

test('exchange: the deadline fails the call once, as a timeout', async () => {
  const e = await engine(() => undefined);
  const client = new EngineClient(e.url);
  try {
    const out = await exchange(client, Buffer.from('{}'), {}, 100);
    assert.equal(out.calls, 1);
    assert.ok(out.err instanceof EngineCallError);
    assert.equal((out.err as EngineCallError).kind, 'timeout');
    assert.equal((out.err as EngineCallError).afterHead, false);
  } finally {
    client.close();
    await e.close();
  }
});

test('exchange: a body cut short after the head fails as a failure after the head', async () => {
  const e = await engine((_req, socket) => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 15\r\n\r\n{"res'));
  const client = new EngineClient(e.url);
  try {
    const out = await exchange(client, Buffer.from('{}'), {});
    assert.equal(out.calls, 1);
    assert.equal((out.err as EngineCallError).kind, 'unreachable');
    assert.equal((out.err as EngineCallError).afterHead, true);
  } finally {
    client.close();
    await e.close();
  }
});

test('exchange: an unreachable engine and an invalid header fail once; the invalid header before anything is sent', async () => {
  const e = await engine((_req, socket) => socket.write(OK));
  const url = e.url;
  await e.close();
  const down = new EngineClient(url);
  try {
    const out = await exchange(down, Buffer.from('{}'), {});
    assert.equal(out.calls, 1);
    assert.equal((out.err as EngineCallError).kind, 'unreachable');
  } finally {
    down.close();
  }
  const e2 = await engine((_req, socket) => socket.write(OK));
  const client = new EngineClient(e2.url);
  try {
    const out = await exchange(client, Buffer.from('{}'), { 'x-bad': 'a\r\nb' });
    assert.equal(out.calls, 1);
    assert.equal(out.sync, true);
    assert.equal((out.err as EngineCallError).kind, 'unreachable');
    assert.equal(e2.requests.length, 0);
  } finally {
    client.close();
    await e2.close();
  }
});

test('open still resolves and rejects as before (on top of exchange)', async () => {
  const e = await engine((_req, socket) => socket.write(OK));
  const client = new EngineClient(e.url);
  try {
    const answer = await client.call({ method: 'POST', path: '/1.1/functions/hello', headers: {}, body: Buffer.from('{}'), timeoutMs: 2000 }, 1000);
    assert.deepEqual(answer, { status: 200, contentType: 'application/json; charset=utf-8', text: '{"result":"hi"}' });
    await assert.rejects(client.open({ method: 'POST', path: '/1.1/functions/hello', headers: { 'bad name': 'x' }, body: Buffer.from('{}'), timeoutMs: 2000 }), EngineCallError);
  } finally {
    client.close();
    await e.close();
  }
});
