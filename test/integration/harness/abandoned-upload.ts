/**
 * A PUT upload the client gives up on halfway, and the wait until the server has let go of it
 * (files-large-upload and files-fast-path check that the token is given back and no temporary
 * file stays, on both body paths).
 */
import { readdir } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';

/** Sends a PUT declaring `declared` bytes, sends `sent` of them, waits `pauseMs`, then closes the socket. */
export function abandonPut(port: number, path: string, declared: number, sent: Buffer, pauseMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(`PUT ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\nContent-Length: ${declared}\r\n\r\n`);
      socket.write(sent, () => setTimeout(() => {
        socket.destroy();
        resolve();
      }, pauseMs));
    });
    socket.on('error', reject);
  });
}

/** The temporary `.part` files left in a local files directory. */
export async function partFiles(filesDir: string): Promise<string[]> {
  return (await readdir(join(filesDir, 'tmp'))).filter((f) => f.endsWith('.part'));
}

/**
 * Waits (up to 5 s) until the file's bookkeeping row is `pending` and no temporary file is left:
 * the server removes the temporary file before it gives the token back. The caller asserts both.
 */
export async function untilUploadLetGo(filesDir: string, state: () => Promise<string | undefined>): Promise<void> {
  for (let i = 0; i < 100 && ((await state()) !== 'pending' || (await partFiles(filesDir)).length); i++) await new Promise((r) => setTimeout(r, 50));
}
