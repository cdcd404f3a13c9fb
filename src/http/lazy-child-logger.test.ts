import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import { createLogger } from '../log.ts';
import { lazyChildLogger } from './lazy-child-logger.ts';

function capture(level: string): { logger: FastifyBaseLogger; lines: () => Record<string, unknown>[]; children: () => number } {
  const out: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      out.push(chunk.toString());
      done();
    },
  });
  const logger = createLogger(level, stream);
  let children = 0;
  const child = logger.child.bind(logger);
  logger.child = ((...args: Parameters<FastifyBaseLogger['child']>) => {
    children++;
    return child(...args);
  }) as FastifyBaseLogger['child'];
  return { logger, lines: () => out.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>), children: () => children };
}

const factory = (parent: FastifyBaseLogger) => lazyChildLogger.call(undefined as never, parent, { reqId: 'r1' }, {}, undefined as never);

test('no child logger is made for a request that logs nothing at its level', () => {
  const c = capture('warn');
  const log = factory(c.logger);
  log.info('not written');
  log.debug('not written');
  assert.equal(c.children(), 0);
  assert.deepEqual(c.lines(), []);
  assert.equal(log.level, 'warn');
});

test('a written line carries the request id binding and redacts secrets', () => {
  const c = capture('warn');
  const log = factory(c.logger);
  log.error({ password: 'p' }, 'boom');
  assert.equal(c.children(), 1);
  const [line] = c.lines();
  assert.equal(line.reqId, 'r1');
  assert.equal(line.msg, 'boom');
  assert.equal(line.password, '[redacted]');
  log.warn('again');
  assert.equal(c.children(), 1, 'the child is made once');
});
