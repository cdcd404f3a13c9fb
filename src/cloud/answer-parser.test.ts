import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AnswerParser, type AnswerHead } from './answer-parser.ts';

interface Seen {
  head?: AnswerHead;
  body: string;
  end?: boolean;
  error?: string;
}

/** Feeds `wire` in pieces of `step` bytes; `closeAfter` ends the connection after the bytes. */
function parse(wire: string, step: number, closeAfter = false): Seen {
  const seen: Seen = { body: '' };
  const p = new AnswerParser();
  p.expect({
    head: (h) => (seen.head = h),
    data: (c) => (seen.body += c.toString('latin1')),
    end: (reusable) => (seen.end = reusable),
    error: (m) => (seen.error = m),
  });
  const buf = Buffer.from(wire, 'latin1');
  for (let i = 0; i < buf.length; i += step) p.feed(buf.subarray(i, i + step));
  if (closeAfter) p.closed('closed');
  return seen;
}

const sizes = [1, 2, 3, 7, 1000];

test('Content-Length answers, in any split, with their headers', () => {
  const wire = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 15\r\nSet-Cookie: a=1\r\nset-cookie: b=2\r\nCache-Control: no-cache\r\nCache-Control: private\r\n\r\n{"result":"ok"}';
  for (const step of sizes) {
    const s = parse(wire, step);
    assert.equal(s.head?.status, 200);
    assert.equal(s.head?.headers['content-type'], 'application/json');
    assert.deepEqual(s.head?.headers['set-cookie'], ['a=1', 'b=2']);
    assert.equal(s.head?.headers['cache-control'], 'no-cache, private');
    assert.equal(s.body, '{"result":"ok"}');
    assert.equal(s.end, true, `step ${step}`);
  }
});

test('chunked answers with extensions and trailers, in any split', () => {
  const wire = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=1\r\nhello\r\nB\r\n 0123456789\r\n0\r\nTrailer: t\r\n\r\n';
  for (const step of sizes) {
    const s = parse(wire, step);
    assert.equal(s.body, 'hello 0123456789', `step ${step}`);
    assert.equal(s.end, true);
  }
});

test('1xx answers are skipped; 204 and 304 have no body; Connection: close and HTTP/1.0 are not reused', () => {
  const s = parse('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok', 4);
  assert.equal(s.head?.status, 201);
  assert.equal(s.body, 'ok');
  assert.equal(parse('HTTP/1.1 204 No Content\r\n\r\n', 5).end, true);
  assert.equal(parse('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n', 5).end, false);
  assert.equal(parse('HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n', 5).end, false);
  assert.equal(parse('HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n', 5).end, true);
});

test('an answer without framing runs to the close; one cut short is an error', () => {
  const s = parse('HTTP/1.1 200 OK\r\n\r\nall of it', 3, true);
  assert.equal(s.body, 'all of it');
  assert.equal(s.end, false);
  const cut = parse('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc', 3, true);
  assert.equal(cut.error, 'closed');
  assert.equal(cut.end, undefined);
});

test('malformed answers are errors, never guessed at', () => {
  for (const wire of [
    'HTTP/2 200 OK\r\n\r\n',
    'HTTP/1.1 200 OK\r\nno colon here\r\n\r\n',
    'HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nx',
    'HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n',
    'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
    'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nabc',
  ]) {
    const s = parse(wire, 2);
    assert.ok(s.error, JSON.stringify(wire));
    assert.equal(s.end, undefined);
  }
});

test('bytes after the answer make the connection unusable', () => {
  const s = parse('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA', 1000);
  assert.equal(s.body, 'ok');
  assert.equal(s.end, false);
});

test('status lines read as /^HTTP\\/1\\.([01]) (\\d{3})(?: |$)/ reads them, without a regex', () => {
  const ok: [string, number, boolean][] = [
    ['HTTP/1.1 200 OK', 200, true],
    ['HTTP/1.1 404', 404, true],
    ['HTTP/1.1 503 ', 503, true],
    ['HTTP/1.0 201 Created', 201, false],
    ['HTTP/1.1 999 Whatever it says', 999, true],
  ];
  for (const [line, status, reused] of ok) {
    const s = parse(`${line}\r\nContent-Length: 0\r\n\r\n`, 3);
    assert.equal(s.head?.status, status, line);
    assert.equal(s.end, reused, line);
  }
  for (const line of ['HTTP/1.2 200 OK', 'HTTP/1.1 20 OK', 'HTTP/1.1 2000 OK', 'HTTP/1.1 20x OK', 'HTTP/1.1  200 OK', 'HTTP/1.1 200OK', 'http/1.1 200 OK', 'HTTP/1.1', 'HTTP/1.1 ', 'XTTP/1.1 200 OK', 'HTTP/1.1\t200 OK']) {
    const s = parse(`${line}\r\nContent-Length: 0\r\n\r\n`, 4);
    assert.ok(s.error, line);
    assert.equal(s.head, undefined, line);
  }
});

test('header names match in any case and spelling; only the headers Larder reads are kept', () => {
  const wire =
    'HTTP/1.1 200 OK\r\nCONTENT-LENGTH: 2\r\ncontent-type: a/b\r\nCache-control: no-store\r\nX-Powered-By: Express\r\nx-Other-Thing: 1\r\nSET-COOKIE: a=1\r\nDate: Sat, 28 Nov 2026 00:52:33 GMT\r\nAccess-Control-Allow-Origin: *\r\nKeep-Alive: timeout=5\r\nContent-TYPO: x\r\n Vary : Origin\r\nSet-Cookie: b=2\r\nConnection: Close\r\n\r\nok';
  for (const step of sizes) {
    const s = parse(wire, step);
    assert.deepEqual(s.head?.headers, {
      'content-length': '2',
      'content-type': 'a/b',
      'cache-control': 'no-store',
      'set-cookie': ['a=1', 'b=2'],
      connection: 'Close',
    });
    assert.equal(s.body, 'ok');
    assert.equal(s.end, false, 'Connection: Close is not reused');
  }
});

test('header values are trimmed as String.prototype.trim trims them (latin1 spaces), inside spaces kept', () => {
  const values = [' \t\u00a0v a\u00a0\t ', 'plain', '', '   ', '\u000bx\u000c', ' a\u0085 ', 'a  b'];
  for (const v of values) {
    const s = parse(`HTTP/1.1 200 OK\r\nCache-Control:${v}\r\n  Content-Type  :${v}\r\nContent-Length: 0\r\n\r\n`, 1000);
    assert.equal(s.head?.headers['cache-control'], v.trim(), JSON.stringify(v));
    assert.equal(s.head?.headers['content-type'], v.trim(), `a name with spaces around it: ${JSON.stringify(v)}`);
    assert.equal(s.end, true);
  }
});
