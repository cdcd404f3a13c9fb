import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../errors/api-error.ts';
import { codeRequestOptions, optionalPhoneOf, phoneOf } from './sms-params.ts';

function code(f: () => unknown): number | undefined {
  try {
    f();
  } catch (e) {
    return e instanceof ApiError ? e.code : -1;
  }
  return undefined;
}

test('phoneOf: 212 when missing, 127 for anything but a plain number', () => {
  assert.equal(phoneOf({ mobilePhoneNumber: '+8613800138000' }), '+8613800138000');
  assert.equal(phoneOf({ mobilePhoneNumber: '13800138000' }), '13800138000');
  for (const v of [undefined, null, '']) assert.equal(code(() => phoneOf({ mobilePhoneNumber: v })), 212);
  for (const v of ['+86 138', '138-0013', 'x', 138, { $ne: '' }, ['1']]) assert.equal(code(() => phoneOf({ mobilePhoneNumber: v })), 127);
  assert.equal(optionalPhoneOf({}), undefined);
  assert.equal(code(() => optionalPhoneOf({ mobilePhoneNumber: 'x' })), 127);
});

test('codeRequestOptions: ttl defaults to 10 and takes whole minutes from 1 to 30', () => {
  assert.equal(codeRequestOptions({}).ttlMinutes, 10);
  assert.equal(codeRequestOptions({ ttl: 1 }).ttlMinutes, 1);
  assert.equal(codeRequestOptions({ ttl: '30' }).ttlMinutes, 30);
  for (const ttl of [0, 31, 2.5, '2.5', 'x', true, {}]) assert.equal(code(() => codeRequestOptions({ ttl })), 1, String(ttl));
});

test('codeRequestOptions: smsType, template, sign and the other parameters as template variables', () => {
  const o = codeRequestOptions({ mobilePhoneNumber: '1', smsType: 'voice', template: 't', sign: 's', validate_token: 'v', name: 'App', n: 2, b: false });
  assert.deepEqual(o, { ttlMinutes: 10, type: 'voice', template: 't', sign: 's', variables: { name: 'App', n: '2', b: 'false' } });
  assert.equal(code(() => codeRequestOptions({ smsType: 'fax' })), 1);
  assert.equal(code(() => codeRequestOptions({ template: 5 })), 1);
  assert.equal(code(() => codeRequestOptions({ v: { a: 1 } })), 1);
  assert.equal(code(() => codeRequestOptions({ v: 'x'.repeat(300) })), 1);
  const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v']));
  assert.equal(code(() => codeRequestOptions(many)), 1);
});
