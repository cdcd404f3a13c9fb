import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isValidEmail, isValidMobilePhone } from '../model/contact.ts';
import { splitUserBody } from './user-fields.ts';
import { thrownCode } from '../../test/support/thrown-code.ts';

const create = { mode: 'create', master: false } as const;
const update = { mode: 'update', master: false } as const;

test('special fields are split out; the rest goes to the generic parser', () => {
  const b = splitUserBody({ username: 'tom', password: 'cat', email: 'tom@example.com', mobilePhoneNumber: '+8618600000000', age: 3, ACL: {} }, create);
  assert.equal(b.username, 'tom');
  assert.equal(b.password, 'cat');
  assert.equal(b.email, 'tom@example.com');
  assert.equal(b.mobilePhoneNumber, '+8618600000000');
  assert.deepEqual({ ...b.rest }, { age: 3, ACL: {} });
});

test('missing or empty credentials on sign-up are 200/201; blank or non-strings 217/218', () => {
  assert.equal(thrownCode(() => splitUserBody({ username: '' }, create)), 200);
  assert.equal(thrownCode(() => splitUserBody({ username: null }, create)), 200);
  assert.equal(thrownCode(() => splitUserBody({ username: '   ' }, create)), 217);
  assert.equal(thrownCode(() => splitUserBody({ username: 5 }, create)), 217);
  assert.equal(thrownCode(() => splitUserBody({ username: { $ne: '' } }, create)), 217);
  assert.equal(thrownCode(() => splitUserBody({ password: '' }, create)), 201);
  assert.equal(thrownCode(() => splitUserBody({ password: ' ' }, create)), 218);
  assert.equal(thrownCode(() => splitUserBody({ password: ['x'] }, create)), 218);
  assert.equal(thrownCode(() => splitUserBody({ username: '' }, update)), 217);
  assert.equal(thrownCode(() => splitUserBody({ password: '' }, update)), 218);
});

test('email and phone are validated; null or Delete removes them on update', () => {
  assert.equal(thrownCode(() => splitUserBody({ email: 'nope' }, create)), 125);
  assert.equal(thrownCode(() => splitUserBody({ email: 5 }, create)), 125);
  assert.equal(thrownCode(() => splitUserBody({ mobilePhoneNumber: '186-0000' }, create)), 127);
  assert.equal(splitUserBody({ email: null }, update).email, null);
  assert.equal(splitUserBody({ mobilePhoneNumber: { __op: 'Delete' } }, update).mobilePhoneNumber, null);
  assert.equal(splitUserBody({ email: null }, create).email, undefined);
  assert.ok(isValidEmail('a@b'));
  assert.ok(!isValidEmail('a @b'));
  assert.ok(isValidMobilePhone('18600000000'));
  assert.ok(!isValidMobilePhone('+86 186'));
});

test('clients cannot write server-managed fields (117); the master key may set the verified flags', () => {
  for (const key of ['sessionToken', 'salt', 'emailVerified', 'mobilePhoneVerified']) {
    assert.equal(thrownCode(() => splitUserBody({ [key]: true }, create)), 117, key);
    assert.equal(thrownCode(() => splitUserBody({ [key]: true }, update)), 117, key);
  }
  assert.equal(thrownCode(() => splitUserBody({ sessionToken: 'x' }, { mode: 'update', master: true })), 117);
  assert.equal(thrownCode(() => splitUserBody({ salt: 'x' }, { mode: 'create', master: true })), 117);
  assert.deepEqual(splitUserBody({ emailVerified: true }, { mode: 'update', master: true }).verifiedFlags, { emailVerified: true });
  assert.equal(thrownCode(() => splitUserBody({ emailVerified: 'yes' }, { mode: 'update', master: true })), 111);
});

test('dotted paths into special fields are refused', () => {
  assert.equal(thrownCode(() => splitUserBody({ 'sessionToken.x': 1 }, update)), 117);
  assert.equal(thrownCode(() => splitUserBody({ 'password.x': 1 }, update)), 117);
  assert.equal(thrownCode(() => splitUserBody({ 'username.x': 1 }, update)), 105);
  assert.equal(thrownCode(() => splitUserBody({ 'authData.github': { uid: 'g', access_token: 't' } }, create)), 105);
});

test('authData: whole object on sign-up, link/unlink on update', () => {
  assert.deepEqual(splitUserBody({ authData: { anonymous: { id: 'a' } } }, create).authData?.map((e) => e.uid), ['a']);
  const u = splitUserBody({ authData: { github: { uid: 'g', access_token: 't' } }, 'authData.qq': { __op: 'Delete' } }, update);
  assert.deepEqual(u.authDataChange?.link.map((e) => e.platform), ['github']);
  assert.deepEqual(u.authDataChange?.unlink, ['qq']);
  assert.equal(splitUserBody({ age: 1 }, update).authDataChange, undefined);
});

test('a __proto__ key stays a key for the generic parser to refuse', () => {
  const b = splitUserBody(JSON.parse('{"__proto__": {"x": 1}, "a": 1}'), create);
  assert.deepEqual(Object.keys(b.rest).sort(), ['__proto__', 'a']);
  assert.equal(Object.getPrototypeOf(b.rest), null);
});
