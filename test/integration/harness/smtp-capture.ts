// A real SMTP server on 127.0.0.1 (the `smtp-server` package) that keeps every mail it receives,
// with a small MIME reader for the single-part text mails Larder sends (quoted-printable or
// base64 bodies, RFC 2047 subjects). Tests point a Mailer at it with a user and password, read
// the mail Larder actually sent, and follow its link.
import { createTransport } from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { Mailer } from '../../../src/mail/mailer.ts';
import { createLogger } from '../../../src/log.ts';

/** One received mail. */
export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  headers: Map<string, string>;
  raw: string;
}

/** SMTP credentials the capture server accepts (and requires). */
export const SMTP_USER = 'larder-test';
export const SMTP_PASS = 'p@ss word';

function decodeQuotedPrintable(body: string): Buffer {
  const soft = body.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < soft.length; i++) {
    const c = soft[i];
    if (c === '=' && /^[0-9A-Fa-f]{2}$/.test(soft.slice(i + 1, i + 3))) {
      bytes.push(parseInt(soft.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(c, 'utf8'));
    }
  }
  return Buffer.from(bytes);
}

function decodeWords(value: string): string {
  return value.replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=\s*/g, (_m, _charset: string, enc: string, text: string) =>
    enc.toUpperCase() === 'B' ? Buffer.from(text, 'base64').toString('utf8') : decodeQuotedPrintable(text.replace(/_/g, ' ')).toString('utf8'),
  ).trim();
}

/** Parses a single-part mail. */
export function parseMail(raw: string): Omit<ReceivedMail, 'from' | 'to'> {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const body = raw.slice(split + 4);
  const headers = new Map<string, string>();
  for (const line of head.split('\r\n')) {
    const i = line.indexOf(':');
    if (i > 0) headers.set(line.slice(0, i).trim().toLowerCase(), line.slice(i + 1).trim());
  }
  const cte = (headers.get('content-transfer-encoding') ?? '7bit').toLowerCase();
  const text = cte === 'quoted-printable' ? decodeQuotedPrintable(body).toString('utf8') : cte === 'base64' ? Buffer.from(body, 'base64').toString('utf8') : body;
  return { subject: decodeWords(headers.get('subject') ?? ''), text: text.replace(/\r\n/g, '\n'), headers, raw };
}

/** A running capture server. */
export class SmtpCapture {
  readonly mails: ReceivedMail[] = [];
  private waiters: (() => void)[] = [];
  private constructor(private readonly server: SMTPServer, readonly port: number) {}

  /** Starts a server on a random port of 127.0.0.1. */
  static async start(): Promise<SmtpCapture> {
    let capture: SmtpCapture | undefined;
    const server = new SMTPServer({
      secure: false,
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      authMethods: ['PLAIN', 'LOGIN'],
      logger: false,
      onAuth(auth, _session, cb) {
        if (auth.username === SMTP_USER && auth.password === SMTP_PASS) cb(null, { user: auth.username });
        else cb(new Error('Invalid username or password'));
      },
      onData(stream, session, cb) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
          capture?.receive({ from, to: session.envelope.rcptTo.map((r) => r.address), ...parseMail(raw) });
          cb();
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const address = server.server.address();
    if (!address || typeof address === 'string') throw new Error('no SMTP address');
    capture = new SmtpCapture(server, address.port);
    return capture;
  }

  private receive(mail: ReceivedMail): void {
    this.mails.push(mail);
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** The SMTP URL of this server, with the accepted credentials. */
  url(): string {
    return `smtp://${encodeURIComponent(SMTP_USER)}:${encodeURIComponent(SMTP_PASS)}@127.0.0.1:${this.port}`;
  }

  /** A Larder mailer that sends here, with links to `linkBaseUrl`. */
  mailer(linkBaseUrl: string): Mailer {
    return new Mailer({ smtpUrl: this.url(), from: 'Larder Test <no-reply@larder.test>', linkBaseUrl, logger: createLogger('silent'), createTransport });
  }

  /** Waits for the next mail to `to` that arrives after `since` mails were received. */
  async next(to: string, since: number, timeoutMs = 10_000): Promise<ReceivedMail> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.mails.slice(since).find((m) => m.to.includes(to));
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no mail to ${to} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** Mails to `to` received after `since`. */
  to(to: string, since = 0): ReceivedMail[] {
    return this.mails.slice(since).filter((m) => m.to.includes(to));
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** The link in a mail's text. */
export function linkIn(mail: ReceivedMail): URL {
  const m = /https?:\/\/\S+/.exec(mail.text);
  if (!m) throw new Error(`no link in mail: ${mail.text}`);
  return new URL(m[0]);
}

/** What mail capture needs of a harness: its app (for the mailer) and its listening URL. */
interface MailHarness {
  app: { mailer?: Mailer };
  listen(): Promise<string>;
}

/**
 * Starts a capture, makes the harness listen, and points its app's mailer at the capture; links
 * in mails then lead to `base`. Pair with stopMailCapture in the suite's `after`.
 */
export async function startMailCapture(h: MailHarness): Promise<{ smtp: SmtpCapture; base: string }> {
  const smtp = await SmtpCapture.start();
  const base = await h.listen();
  h.app.mailer = smtp.mailer(base);
  return { smtp, base };
}

/** Closes the harness's mailer and the capture. */
export async function stopMailCapture(h: MailHarness, smtp: SmtpCapture): Promise<void> {
  h.app.mailer?.close();
  await smtp.stop();
}
