import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { helpText } from './cli/help.ts';
import { ConfigError, loadConfig, SETTINGS } from './config.ts';

const dir = mkdtempSync(join(tmpdir(), 'larder-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
/** Writes a config file with the given text and returns its path. */
function configFile(text: string): string {
  const path = join(dir, `config-${files++}.json`);
  writeFileSync(path, text);
  return path;
}

describe('loadConfig: defaults', () => {
  test('every setting with a default gets it; the rest are undefined', () => {
    const c = loadConfig({}, {});
    for (const s of SETTINGS) assert.equal(c[s.key], s.default, s.key);
    assert.equal(c.port, 3000);
    assert.equal(c.host, '127.0.0.1');
    assert.equal(c.dataDir, './data');
    assert.equal(c.databaseUrl, undefined);
    assert.equal(c.dbSchema, 'larder');
    assert.equal(c.workers, 1);
    assert.equal(c.logLevel, 'info');
    assert.equal(c.bodyLimitBytes, 20 * 1024 * 1024);
  });

  test('unrelated environment variables are ignored', () => {
    const c = loadConfig({ PORT: '1', HOST: 'x', PATH: '/bin' }, {});
    assert.equal(c.port, 3000);
    assert.equal(c.host, '127.0.0.1');
  });
});

describe('loadConfig: sources and precedence', () => {
  test('environment variables set every setting', () => {
    const env: Record<string, string> = {};
    for (const s of SETTINGS) env[s.env] = s.kind === 'int' ? '7' : s.key === 'logLevel' ? 'debug' : `v_${s.key}`;
    const c = loadConfig(env, {});
    for (const s of SETTINGS) {
      const want = s.kind === 'int' ? 7 : s.key === 'logLevel' ? 'debug' : `v_${s.key}`;
      assert.equal(c[s.key], want, s.env);
    }
  });

  test('flags set every setting', () => {
    const flags: Record<string, string> = {};
    for (const s of SETTINGS) flags[s.flag] = s.kind === 'int' ? '9' : s.key === 'logLevel' ? 'warn' : `f_${s.key}`;
    const c = loadConfig({}, flags);
    for (const s of SETTINGS) {
      const want = s.kind === 'int' ? 9 : s.key === 'logLevel' ? 'warn' : `f_${s.key}`;
      assert.equal(c[s.key], want, s.flag);
    }
  });

  test('an empty environment variable counts as unset', () => {
    assert.equal(loadConfig({ LARDER_PORT: '', LARDER_HOST: '' }, {}).port, 3000);
  });

  test('the config file accepts env names and keys, with JSON numbers or strings', () => {
    const path = configFile(JSON.stringify({ LARDER_PORT: 4100, host: '127.0.0.1', workers: '3', LARDER_APP_ID: 'fromFile' }));
    const c = loadConfig({}, { '--config': path });
    assert.deepEqual([c.port, c.host, c.workers, c.appId], [4100, '127.0.0.1', 3, 'fromFile']);
  });

  test('flags > environment > config file > defaults', () => {
    const path = configFile(JSON.stringify({ LARDER_PORT: 4100, LARDER_HOST: 'file-host', LARDER_APP_ID: 'file-id', LARDER_LOG_LEVEL: 'error' }));
    const env = { LARDER_PORT: '4200', LARDER_HOST: 'env-host' };
    const c = loadConfig(env, { '--config': path, '--port': '4300' });
    assert.equal(c.port, 4300, 'flag beats env and file');
    assert.equal(c.host, 'env-host', 'env beats file');
    assert.equal(c.appId, 'file-id', 'file beats default');
    assert.equal(c.logLevel, 'error');
    assert.equal(c.dbSchema, 'larder', 'default when nobody sets it');
  });

  test('LARDER_CONFIG names the file; --config wins over it', () => {
    const a = configFile(JSON.stringify({ LARDER_PORT: 5001 }));
    const b = configFile(JSON.stringify({ LARDER_PORT: 5002 }));
    assert.equal(loadConfig({ LARDER_CONFIG: a }, {}).port, 5001);
    assert.equal(loadConfig({ LARDER_CONFIG: a }, { '--config': b }).port, 5002);
  });
});

describe('loadConfig: mistakes are ConfigErrors with a clear message', () => {
  const cases: [string, () => unknown, RegExp][] = [
    ['non-numeric int from env', () => loadConfig({ LARDER_PORT: 'abc' }, {}), /environment: LARDER_PORT must be a non-negative integer, got "abc"/],
    ['negative int from a flag', () => loadConfig({}, { '--workers': '-1' }), /command line: LARDER_WORKERS must be a non-negative integer/],
    ['fractional int', () => loadConfig({ LARDER_POOL_SIZE: '2.5' }, {}), /LARDER_POOL_SIZE must be a non-negative integer/],
    ['blank int', () => loadConfig({ LARDER_PORT: ' ' }, {}), /LARDER_PORT must be a non-negative integer/],
    ['hex int', () => loadConfig({ LARDER_PORT: '0x50' }, {}), /LARDER_PORT must be a non-negative integer/],
    ['port out of range', () => loadConfig({}, { '--port': '70000' }), /LARDER_PORT must be at most 65535/],
    ['bad log level', () => loadConfig({ LARDER_LOG_LEVEL: 'loud' }, {}), /LARDER_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent/],
    ['schema that is not an identifier', () => loadConfig({ LARDER_DB_SCHEMA: 'a-b; drop' }, {}), /LARDER_DB_SCHEMA must be a plain identifier/],
    ['unknown flag', () => loadConfig({}, { '--prot': '8080' }), /unknown option --prot/],
    ['missing config file', () => loadConfig({}, { '--config': join(dir, 'nope.json') }), /config file not found: .*nope\.json/],
    ['config file that is not JSON', () => loadConfig({}, { '--config': configFile('{port: 1') }), /is not valid JSON/],
    ['config file holding an array', () => loadConfig({}, { '--config': configFile('[1]') }), /must hold a JSON object/],
    ['unknown key in the config file', () => loadConfig({}, { '--config': configFile('{"LARDER_PROT": 1}') }), /unknown setting "LARDER_PROT"/],
    ['wrong type in the config file', () => loadConfig({}, { '--config': configFile('{"LARDER_HOST": 5}') }), /LARDER_HOST must be a non-empty string/],
    ['float in the config file', () => loadConfig({}, { '--config': configFile('{"port": 1.5}') }), /LARDER_PORT must be a non-negative integer, got 1\.5/],
  ];
  for (const [name, run, message] of cases) {
    test(name, () => assert.throws(run, (err: unknown) => err instanceof ConfigError && message.test(err.message)));
  }
});

describe('larder --help', () => {
  test('lists every setting with its flag and environment variable', () => {
    const help = helpText();
    for (const s of SETTINGS) {
      assert.ok(help.includes(s.flag), `missing ${s.flag}`);
      assert.ok(help.includes(s.env), `missing ${s.env}`);
    }
    assert.ok(help.includes('--config') && help.includes('LARDER_CONFIG'));
  });
});
