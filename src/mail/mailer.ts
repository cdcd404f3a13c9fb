/**
 * Outgoing mail over SMTP (nodemailer), configured by one URL (LARDER_SMTP_URL, e.g.
 * smtp://user:pass@host:587; smtps:// for TLS from the first byte; nodemailer's URL query options
 * such as ?tls.rejectUnauthorized=false pass through). Mails of the account flows are sent after
 * the request has been answered (`later`), so that neither the answer nor its timing tells a
 * client whether an address belongs to an account; `idle()` lets shutdown and tests wait for them.
 */
import type { createTransport as CreateTransport } from 'nodemailer';
import { ConfigError, urlSetting } from '../config.ts';
import type { Logger } from '../log.ts';

/** One plain-text mail. */
export interface OutgoingMail {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
}

/** What a mailer needs. */
export interface MailerOptions {
  /** SMTP URL: smtp://[user:pass@]host[:port][?options] or smtps://... */
  readonly smtpUrl: string;
  /** Sender address, e.g. "My App <no-reply@example.com>". */
  readonly from: string;
  /** Base URL of the links in mails (LARDER_PUBLIC_URL, or the listening address). */
  readonly linkBaseUrl: string;
  readonly logger: Logger;
  /** nodemailer's, loaded by `mailerFromConfig` only when mail is configured. */
  readonly createTransport: typeof CreateTransport;
}

// A stuck SMTP server must not hold a shutdown (or a test) for nodemailer's default minutes.
const CONNECTION_TIMEOUT_MS = 10_000;
const SOCKET_TIMEOUT_MS = 30_000;

/** Sends mail for one app. */
export class Mailer {
  /** Sender address. */
  readonly from: string;
  /** Base URL of links in mails, without a trailing slash. */
  readonly linkBaseUrl: string;
  private readonly transport;
  private readonly logger: Logger;
  private readonly pending = new Set<Promise<void>>();

  constructor(opts: MailerOptions) {
    this.from = opts.from;
    this.linkBaseUrl = opts.linkBaseUrl.replace(/\/+$/, '');
    this.logger = opts.logger;
    this.transport = opts.createTransport({
      url: opts.smtpUrl,
      connectionTimeout: CONNECTION_TIMEOUT_MS,
      greetingTimeout: CONNECTION_TIMEOUT_MS,
      socketTimeout: SOCKET_TIMEOUT_MS,
    });
  }

  /** Sends one mail now; rejects when the SMTP server refuses it. */
  async send(mail: OutgoingMail): Promise<void> {
    await this.transport.sendMail({ from: this.from, to: mail.to, subject: mail.subject, text: mail.text });
  }

  /**
   * Runs `work` (which usually ends in `send`) after the current request, tracked by `idle()`.
   * A failure is logged with `what` and the user id, never with the address or the link.
   */
  later(what: string, userId: string | undefined, work: () => Promise<void>): void {
    const run = (async () => {
      // Let the request finish first: the work must not delay or shape its answer.
      await new Promise<void>((resolve) => setImmediate(resolve));
      await work();
    })().catch((err: unknown) => {
      this.logger.error({ err, what, userId }, 'sending mail failed');
    });
    this.pending.add(run);
    void run.finally(() => this.pending.delete(run));
  }

  /** Resolves when every mail started by `later` has been sent or has failed. */
  async idle(): Promise<void> {
    while (this.pending.size) await Promise.all([...this.pending]);
  }

  /** Closes pooled SMTP connections (the default transport keeps none). */
  close(): void {
    this.transport.close();
  }
}

/** Mail settings of the configuration. */
export interface MailConfig {
  smtpUrl?: string;
  mailFrom?: string;
}

/** Checks the mail settings (ConfigError: exit 2 at start-up); undefined when mail is off. */
export function checkMailConfig(config: MailConfig): { smtpUrl: string; from: string } | undefined {
  const smtpUrl = urlSetting('LARDER_SMTP_URL', config.smtpUrl, ['smtp:', 'smtps:']);
  if (!smtpUrl) return undefined;
  if (!config.mailFrom) throw new ConfigError('LARDER_MAIL_FROM is required with LARDER_SMTP_URL (e.g. "My App <no-reply@example.com>")');
  return { smtpUrl, from: config.mailFrom };
}

/**
 * The mailer of a configuration, or undefined when no SMTP server is configured. nodemailer
 * (3 MB of heap, 16 MB resident) is loaded only then: a server without mail never needs it, and
 * every process pays for its heap on every request (docs/benchmarks.md, "Cloud code").
 */
export async function mailerFromConfig(config: MailConfig, linkBaseUrl: string, logger: Logger): Promise<Mailer | undefined> {
  const mail = checkMailConfig(config);
  if (!mail) return undefined;
  const { createTransport } = await import('nodemailer');
  return new Mailer({ smtpUrl: mail.smtpUrl, from: mail.from, linkBaseUrl, logger, createTransport });
}
