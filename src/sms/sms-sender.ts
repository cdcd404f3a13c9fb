/**
 * Who delivers SMS codes. Larder generates, stores and checks the codes itself; a sender only
 * delivers one message. Two senders ship: the log sender (development: writes the code to the
 * log) and the webhook sender (production: POSTs JSON to a gateway of your own, webhook-sender.ts).
 * Anything else (a provider SDK, a queue) is an object with `send`, set as `app.smsSender`.
 */
import { ConfigError, urlSetting } from '../config.ts';
import type { Logger } from '../log.ts';
import { WebhookSmsSender } from './webhook-sender.ts';

/** Why a code was sent; the flow that asked for it. */
export type SmsPurpose = 'sms' | 'login' | 'verify' | 'reset';

/** One code to deliver. */
export interface SmsMessage {
  /** The number as the client gave it (validated: +<country code><digits> or digits). */
  readonly phone: string;
  /** Six digits. */
  readonly code: string;
  /** Minutes the code is valid. */
  readonly ttlMinutes: number;
  readonly purpose: SmsPurpose;
  /** `sms` or `voice` (requestSmsCode's smsType); a sender without voice may treat both alike. */
  readonly type: 'sms' | 'voice';
  /** requestSmsCode's `template` and `sign`, for gateways with named templates. */
  readonly template?: string;
  readonly sign?: string;
  /** requestSmsCode's other string parameters (LeanCloud's template variables, `name`, `op`). */
  readonly variables: Readonly<Record<string, string>>;
}

/** Delivers SMS codes; `send` rejects when the message could not be handed over (602). */
export interface SmsSender {
  /** Shown in logs: 'log', 'webhook', or a plugin's name. */
  readonly name: string;
  send(message: SmsMessage): Promise<void>;
}

/**
 * Development sender: logs the number and the code (info level), delivers nothing. It runs only
 * when chosen explicitly (LARDER_SMS_SENDER=log), and says so at start-up, because anyone who
 * reads the log can then log in as any phone user.
 */
export class LogSmsSender implements SmsSender {
  readonly name = 'log';
  constructor(private readonly logger: Logger) {}

  async send(m: SmsMessage): Promise<void> {
    this.logger.info({ smsTo: m.phone, smsCode: m.code, purpose: m.purpose, ttlMinutes: m.ttlMinutes }, 'SMS code (log sender, development only)');
  }
}

/** SMS settings of the configuration. */
export interface SmsConfig {
  smsSender?: string;
  smsWebhookUrl?: string;
  smsWebhookSecret?: string;
  smsWebhookTimeoutMs: number;
}

/**
 * Checks the SMS settings (ConfigError: exit 2 at start-up) and names the sender: the one given,
 * else webhook when a webhook URL is set, else none.
 */
export function checkSmsConfig(config: SmsConfig): 'none' | 'log' | 'webhook' {
  const url = urlSetting('LARDER_SMS_WEBHOOK_URL', config.smsWebhookUrl, ['http:', 'https:']);
  const kind = config.smsSender ?? (url ? 'webhook' : 'none');
  if (kind !== 'none' && kind !== 'log' && kind !== 'webhook') throw new ConfigError('LARDER_SMS_SENDER must be one of none, log, webhook');
  if (kind === 'webhook' && !url) throw new ConfigError('LARDER_SMS_SENDER=webhook needs LARDER_SMS_WEBHOOK_URL');
  return kind;
}

/** The sender a configuration names, or undefined for none (SMS endpoints then answer 503). */
export function smsSenderFromConfig(config: SmsConfig, logger: Logger): SmsSender | undefined {
  const kind = checkSmsConfig(config);
  if (kind === 'log') {
    logger.warn('LARDER_SMS_SENDER=log: SMS codes are written to the log and sent to nobody; never use this in production');
    return new LogSmsSender(logger);
  }
  if (kind === 'webhook' && config.smsWebhookUrl) {
    return new WebhookSmsSender({ url: config.smsWebhookUrl, secret: config.smsWebhookSecret, timeoutMs: config.smsWebhookTimeoutMs, logger });
  }
  return undefined;
}
