import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_EMAIL_TEXTS } from '../settings/email-texts.ts';
import { fill, oneLine } from './mail-texts.ts';

test('fill replaces the four placeholders, tolerating spaces inside the braces', () => {
  assert.equal(
    fill('{{appName}}: {{ username }} <{{email}}> {{link}}', 'Pantry', { username: 'ann', email: 'a@b.c', link: 'http://x/y?token=t' }),
    'Pantry: ann <a@b.c> http://x/y?token=t',
  );
});

test('fill leaves unknown placeholders as written and empties missing values', () => {
  assert.equal(fill('{{other}} {{username}}|{{link}}', 'A', {}), '{{other}} |');
});

test('fill does not re-expand placeholders found in values', () => {
  assert.equal(fill('{{username}}', 'Secret', { username: '{{appName}}' }), '{{appName}}');
});

test('oneLine removes line breaks (no header injection) and bounds the length', () => {
  assert.equal(oneLine('Hi\r\nBcc: x@y.z\n'), 'Hi Bcc: x@y.z');
  assert.equal(oneLine('x'.repeat(400)).length, 250);
});

test('every default mail body carries the link, and every default text is non-empty', () => {
  assert.match(DEFAULT_EMAIL_TEXTS.verifyEmailBody, /\{\{link\}\}/);
  assert.match(DEFAULT_EMAIL_TEXTS.resetPasswordBody, /\{\{link\}\}/);
  for (const [k, v] of Object.entries(DEFAULT_EMAIL_TEXTS)) if (k !== 'appName') assert.ok(v.length > 0, k);
});
