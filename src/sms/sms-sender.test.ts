import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../config.ts';
import { createLogger } from '../log.ts';
import { checkMailConfig, mailerFromConfig } from '../mail/mailer.ts';
import { checkSmsConfig, LogSmsSender, smsSenderFromConfig } from './sms-sender.ts';
import { WebhookSmsSender } from './webhook-sender.ts';

const logger = createLogger('silent');

test('the SMS sender follows the configuration: none by default, webhook with a URL, log when asked', () => {
  assert.equal(smsSenderFromConfig(loadConfig({}, {}), logger), undefined);
  const hook = loadConfig({ LARDER_SMS_WEBHOOK_URL: 'https://sms.example/send' }, {});
  assert.equal(checkSmsConfig(hook), 'webhook');
  assert.ok(smsSenderFromConfig(hook, logger) instanceof WebhookSmsSender);
  assert.ok(smsSenderFromConfig(loadConfig({ LARDER_SMS_SENDER: 'log' }, {}), logger) instanceof LogSmsSender);
  assert.equal(smsSenderFromConfig(loadConfig({ LARDER_SMS_SENDER: 'none', LARDER_SMS_WEBHOOK_URL: 'http://x/' }, {}), logger), undefined);
});

test('bad SMS and mail settings are configuration errors', () => {
  const bad: Record<string, string>[] = [
    { LARDER_SMS_SENDER: 'carrier-pigeon' },
    { LARDER_SMS_SENDER: 'webhook' },
    { LARDER_SMS_WEBHOOK_URL: 'ftp://x/' },
    { LARDER_SMS_WEBHOOK_URL: 'not a url' },
    { LARDER_SMTP_URL: 'smtp://mail.example:587' },
    { LARDER_SMTP_URL: 'http://mail.example', LARDER_MAIL_FROM: 'a@b.c' },
    { LARDER_SMS_WEBHOOK_TIMEOUT_MS: '600000' },
  ];
  for (const env of bad) {
    assert.throws(() => {
      const config = loadConfig(env, {});
      checkSmsConfig(config);
      checkMailConfig(config);
    }, ConfigError, JSON.stringify(env));
  }
});

test('a mailer exists only with an SMTP URL and a sender address', async () => {
  assert.equal(await mailerFromConfig(loadConfig({}, {}), 'http://x', logger), undefined);
  const config = loadConfig({ LARDER_SMTP_URL: 'smtps://u:p@mail.example:465', LARDER_MAIL_FROM: 'App <no-reply@example.com>' }, {});
  const mailer = await mailerFromConfig(config, 'https://api.example.com/', logger);
  assert.equal(mailer?.from, 'App <no-reply@example.com>');
  assert.equal(mailer?.linkBaseUrl, 'https://api.example.com');
  mailer?.close();
});
