// The pluggable SMS sender of tests: keeps every message instead of delivering it (the real
// senders, log and webhook, are tested on their own). Set as `app.smsSender`.
import { randomInt } from 'node:crypto';
import type { SmsMessage, SmsSender } from '../../../src/sms/sms-sender.ts';

/** A sender that records messages; `failing` makes it refuse them (602). */
export class CapturingSmsSender implements SmsSender {
  readonly name = 'capture';
  readonly sent: SmsMessage[] = [];
  failing = false;

  async send(message: SmsMessage): Promise<void> {
    if (this.failing) throw new Error('gateway down');
    this.sent.push(message);
  }

  /** Messages to one number. */
  to(phone: string): SmsMessage[] {
    return this.sent.filter((m) => m.phone === phone);
  }

  /** The code of the latest message to a number. */
  lastCode(phone: string): string {
    const all = this.to(phone);
    if (!all.length) throw new Error(`no SMS to ${phone}`);
    return all[all.length - 1].code;
  }
}

/** A fresh valid number: +86139 and eight random digits. */
export function newPhone(): string {
  return `+86139${String(randomInt(0, 100_000_000)).padStart(8, '0')}`;
}
