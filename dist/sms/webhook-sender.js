/**
 * Production SMS sender: POSTs each message as JSON to a URL of your own (a small service in
 * front of the SMS provider of your choice). The body:
 *
 *   {"to": "+8613800000000", "code": "123456", "ttl": 10, "purpose": "login", "type": "sms",
 *    "template": "...", "sign": "...", "variables": {"name": "..."}}
 *
 * Any 2xx answer means delivered to the gateway; anything else, a redirect (refused, so a code
 * never travels further than configured), a network error or no answer within the timeout is a
 * failure (the client gets 602). With a secret, `X-Larder-Timestamp` (ms) and
 * `X-Larder-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">` let the gateway check
 * that the call is Larder's and recent. Codes are never logged by this sender.
 */
import { createHmac } from 'node:crypto';
/** Signature header value of a webhook body (exported for gateways written in TypeScript and tests). */
export function webhookSignature(secret, timestamp, body) {
    return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}
/** Sends SMS codes through an HTTP webhook. */
export class WebhookSmsSender {
    opts;
    name = 'webhook';
    constructor(opts) {
        this.opts = opts;
    }
    async send(m) {
        const body = JSON.stringify({
            to: m.phone,
            code: m.code,
            ttl: m.ttlMinutes,
            purpose: m.purpose,
            type: m.type,
            template: m.template,
            sign: m.sign,
            variables: m.variables,
        });
        const headers = { 'content-type': 'application/json' };
        if (this.opts.secret) {
            const timestamp = String(Date.now());
            headers['x-larder-timestamp'] = timestamp;
            headers['x-larder-signature'] = webhookSignature(this.opts.secret, timestamp, body);
        }
        let status;
        try {
            const res = await fetch(this.opts.url, {
                method: 'POST',
                headers,
                body,
                redirect: 'error',
                signal: AbortSignal.timeout(this.opts.timeoutMs),
            });
            status = res.status;
            // Drain the body so that the connection can be reused.
            await res.arrayBuffer().catch(() => undefined);
        }
        catch (err) {
            const reason = err instanceof Error && err.name === 'TimeoutError' ? `no answer within ${this.opts.timeoutMs} ms` : String(err instanceof Error ? err.message : err);
            this.opts.logger.warn({ purpose: m.purpose, reason }, 'SMS webhook failed');
            throw new Error(`SMS webhook failed: ${reason}`);
        }
        if (status < 200 || status >= 300) {
            this.opts.logger.warn({ purpose: m.purpose, status }, 'SMS webhook refused the message');
            throw new Error(`SMS webhook answered HTTP ${status}`);
        }
    }
}
//# sourceMappingURL=webhook-sender.js.map