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
export type SmsPurpose = 'sms' | 'login' | 'verify' | 'reset' | 'changePhone';

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
 * Development sender: delivers nothing, logs that a code was sent (number and purpose, info
 * level) and the code itself only at debug level, in the message text. Two opt-ins are needed to
 * see codes (LARDER_SMS_SENDER=log and LARDER_LOG_LEVEL=debug), because anyone who reads such a
 * log can log in as any phone user; a log sender switched on by mistake at the usual info level
 * still writes no code.
 */
export class LogSmsSender implements SmsSender {
  readonly name = 'log';
  constructor(private readonly logger: Logger) {}

  async send(m: SmsMessage): Promise<void> {
    this.logger.info({ smsTo: m.phone, purpose: m.purpose, ttlMinutes: m.ttlMinutes }, 'SMS code sent (log sender, development only)');
    this.logger.debug(`SMS code for ${m.phone}: ${m.code} (log sender, development only)`);
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
    logger.warn('LARDER_SMS_SENDER=log: SMS codes are sent to nobody (and written to the log at debug level); never use this in production');
    return new LogSmsSender(logger);
  }
  if (kind === 'webhook' && config.smsWebhookUrl) {
    return new WebhookSmsSender({ url: config.smsWebhookUrl, secret: config.smsWebhookSecret, timeoutMs: config.smsWebhookTimeoutMs, logger });
  }
  return undefined;
}
