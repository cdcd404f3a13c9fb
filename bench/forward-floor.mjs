/**
 * `node bench/forward-floor.mjs <port> <engine base URL>`: the least a Node forwarder of cloud
 * function calls does, for bench/cloud-cpu.ts --floor. Node's HTTP server takes the client's
 * call, a raw keep-alive socket per concurrent call sends it to the engine in one write (the
 * client's headers as they came, no checks), the answer is read by its Content-Length and sent
 * back in one write. No keys, limits, metrics, CORS, deadline or error handling beyond dropping
 * the connection: its CPU per call is the floor a Larder written in Node could reach, measured
 * next to Larder under the same load (docs/benchmarks.md, "Cloud code").
 */
import http from 'node:http';
import net from 'node:net';

const [port, base] = process.argv.slice(2);
const engine = new URL(base);
const idle = [];
const CRLF2 = Buffer.from('\r\n\r\n');

function connection() {
  const c = idle.pop();
  if (c) return c;
  const socket = net.connect({ host: engine.hostname, port: Number(engine.port) });
  socket.setNoDelay(true);
  const conn = { socket, pending: undefined, onAnswer: undefined };
  socket.on('data', (chunk) => {
    const buf = conn.pending ? Buffer.concat([conn.pending, chunk]) : chunk;
    const end = buf.indexOf(CRLF2);
    const m = end < 0 ? null : /\r\ncontent-length: *(\d+)/i.exec(buf.toString('latin1', 0, end));
    if (!m || buf.length < end + 4 + Number(m[1])) {
      conn.pending = buf;
      return;
    }
    conn.pending = undefined;
    const head = buf.toString('latin1', 0, end);
    const type = /\r\ncontent-type: *([^\r]*)/i.exec(head);
    const done = conn.onAnswer;
    conn.onAnswer = undefined;
    idle.push(conn);
    done(Number(head.slice(9, 12)), type ? type[1] : 'application/octet-stream', buf.subarray(end + 4, end + 4 + Number(m[1])));
  });
  socket.on('error', () => socket.destroy());
  return conn;
}

http
  .createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      let head = `POST ${req.url} HTTP/1.1\r\nhost: ${engine.host}\r\n`;
      const raw = req.rawHeaders;
      for (let i = 0; i < raw.length; i += 2) {
        const name = raw[i].toLowerCase();
        if (name !== 'host' && name !== 'connection' && name !== 'content-length') head += `${raw[i]}: ${raw[i + 1]}\r\n`;
      }
      head += `content-length: ${body.length}\r\nconnection: keep-alive\r\n\r\n`;
      const conn = connection();
      conn.onAnswer = (status, type, answer) => {
        res.writeHead(status, { 'content-type': type, 'content-length': answer.length, 'access-control-allow-origin': '*' });
        res.end(answer);
      };
      conn.socket.write(Buffer.concat([Buffer.from(head, 'latin1'), body]));
    });
  })
  .listen(Number(port), '127.0.0.1', () => console.log(`floor forwarder on ${port}`));
