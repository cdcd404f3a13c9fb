import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toIso } from './timestamps.ts';

const cases: [string, unknown, string][] = [
  ['pg text with ms', '2026-11-21 22:35:34.123+00', '2026-11-21T22:35:34.123Z'],
  ['pg text without fraction', '2026-11-21 22:35:34+00', '2026-11-21T22:35:34.000Z'],
  ['pg text with micros', '2026-11-21 22:35:34.123456+00', '2026-11-21T22:35:34.123Z'],
  ['short fraction', '2026-11-21 22:35:34.1+00', '2026-11-21T22:35:34.100Z'],
  ['two-digit fraction', '2026-11-21 22:35:34.12+00', '2026-11-21T22:35:34.120Z'],
  ['four-digit fraction', '2026-11-21 22:35:34.1234+00', '2026-11-21T22:35:34.123Z'],
  ['five-digit fraction', '2026-11-21 22:35:34.98765+00', '2026-11-21T22:35:34.987Z'],
  ['year before 1000', '0999-01-02 03:04:05.6+00', '0999-01-02T03:04:05.600Z'],
  ['offset with minutes', '2026-11-21 22:35:34.5+05:30', '2026-11-21T17:05:34.500Z'],
  ['other offset', '2026-11-21 22:35:34.5+02', '2026-11-21T20:35:34.500Z'],
  ['ISO with Z', '2026-11-21T22:35:34.123Z', '2026-11-21T22:35:34.123Z'],
  ['Date object', new Date('2020-01-01T00:00:00.000Z'), '2020-01-01T00:00:00.000Z'],
];
for (const [name, input, expected] of cases) test(name, () => assert.equal(toIso(input), expected));
