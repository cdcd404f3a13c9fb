/**
 * Outgoing mail over SMTP (nodemailer), configured by one URL (LARDER_SMTP_URL, e.g.
 * smtp://user:pass@host:587; smtps:// for TLS from the first byte; nodemailer's URL query options
 * such as ?tls.rejectUnauthorized=false pass through). Mails of the account flows are sent after
 * the request has been answered (`later`), so that neither the answer nor its timing tells a
 * client whether an address belongs to an account; `idle()` lets shutdown and tests wait for them.
 */
import { createTransport } from 'nodemailer';
import { ConfigError, urlSetting } from '../config.js';
// A stuck SMTP server must not hold a shutdown (or a test) for nodemailer's default minutes.
const CONNECTION_TIMEOUT_MS = 10_000;
const SOCKET_TIMEOUT_MS = 30_000;
/** Sends mail for one app. */
export class Mailer {
    /** Sender address. */
    from;
    /** Base URL of links in mails, without a trailing slash. */
    linkBaseUrl;
    transport;
    logger;
    pending = new Set();
    constructor(opts) {
        this.from = opts.from;
        this.linkBaseUrl = opts.linkBaseUrl.replace(/\/+$/, '');
        this.logger = opts.logger;
        this.transport = createTransport({
            url: opts.smtpUrl,
            connectionTimeout: CONNECTION_TIMEOUT_MS,
            greetingTimeout: CONNECTION_TIMEOUT_MS,
            socketTimeout: SOCKET_TIMEOUT_MS,
        });
    }
    /** Sends one mail now; rejects when the SMTP server refuses it. */
    async send(mail) {
        await this.transport.sendMail({ from: this.from, to: mail.to, subject: mail.subject, text: mail.text });
    }
    /**
     * Runs `work` (which usually ends in `send`) after the current request, tracked by `idle()`.
     * A failure is logged with `what` and the user id, never with the address or the link.
     */
    later(what, userId, work) {
        const run = (async () => {
            // Let the request finish first: the work must not delay or shape its answer.
            await new Promise((resolve) => setImmediate(resolve));
            await work();
        })().catch((err) => {
            this.logger.error({ err, what, userId }, 'sending mail failed');
        });
        this.pending.add(run);
        void run.finally(() => this.pending.delete(run));
    }
    /** Resolves when every mail started by `later` has been sent or has failed. */
    async idle() {
        while (this.pending.size)
            await Promise.all([...this.pending]);
    }
    /** Closes pooled SMTP connections (the default transport keeps none). */
    close() {
        this.transport.close();
    }
}
/** Checks the mail settings (ConfigError: exit 2 at start-up); undefined when mail is off. */
export function checkMailConfig(config) {
    const smtpUrl = urlSetting('LARDER_SMTP_URL', config.smtpUrl, ['smtp:', 'smtps:']);
    if (!smtpUrl)
        return undefined;
    if (!config.mailFrom)
        throw new ConfigError('LARDER_MAIL_FROM is required with LARDER_SMTP_URL (e.g. "My App <no-reply@example.com>")');
    return { smtpUrl, from: config.mailFrom };
}
/** The mailer of a configuration, or undefined when no SMTP server is configured. */
export function mailerFromConfig(config, linkBaseUrl, logger) {
    const mail = checkMailConfig(config);
    return mail && new Mailer({ smtpUrl: mail.smtpUrl, from: mail.from, linkBaseUrl, logger });
}
//# sourceMappingURL=mailer.js.map