/**
 * Who delivers SMS codes. Larder generates, stores and checks the codes itself; a sender only
 * delivers one message. Two senders ship: the log sender (development: writes the code to the
 * log) and the webhook sender (production: POSTs JSON to a gateway of your own, webhook-sender.ts).
 * Anything else (a provider SDK, a queue) is an object with `send`, set as `app.smsSender`.
 */
import { ConfigError, urlSetting } from '../config.js';
import { WebhookSmsSender } from './webhook-sender.js';
/**
 * Development sender: delivers nothing, logs that a code was sent (number and purpose, info
 * level) and the code itself only at debug level, in the message text. Two opt-ins are needed to
 * see codes (LARDER_SMS_SENDER=log and LARDER_LOG_LEVEL=debug), because anyone who reads such a
 * log can log in as any phone user; a log sender switched on by mistake at the usual info level
 * still writes no code.
 */
export class LogSmsSender {
    logger;
    name = 'log';
    constructor(logger) {
        this.logger = logger;
    }
    async send(m) {
        this.logger.info({ smsTo: m.phone, purpose: m.purpose, ttlMinutes: m.ttlMinutes }, 'SMS code sent (log sender, development only)');
        this.logger.debug(`SMS code for ${m.phone}: ${m.code} (log sender, development only)`);
    }
}
/**
 * Checks the SMS settings (ConfigError: exit 2 at start-up) and names the sender: the one given,
 * else webhook when a webhook URL is set, else none.
 */
export function checkSmsConfig(config) {
    const url = urlSetting('LARDER_SMS_WEBHOOK_URL', config.smsWebhookUrl, ['http:', 'https:']);
    const kind = config.smsSender ?? (url ? 'webhook' : 'none');
    if (kind !== 'none' && kind !== 'log' && kind !== 'webhook')
        throw new ConfigError('LARDER_SMS_SENDER must be one of none, log, webhook');
    if (kind === 'webhook' && !url)
        throw new ConfigError('LARDER_SMS_SENDER=webhook needs LARDER_SMS_WEBHOOK_URL');
    return kind;
}
/** The sender a configuration names, or undefined for none (SMS endpoints then answer 503). */
export function smsSenderFromConfig(config, logger) {
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
//# sourceMappingURL=sms-sender.js.map