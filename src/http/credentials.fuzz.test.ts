// Property-based: the text/plain fallback body and batch bodies are parsed or refused with a 4xx.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { isApiError } from '../errors/api-error.ts';
import { parseBatchItem, requestsOf } from './batch/run-batch.ts';
import { hostileJson, onlyClientErrors, RUNS } from '../../test/support/hostile-json.ts';
import { fromFallbackBody } from './credentials.ts';
import { parseJsonBody } from './json-body.ts';

const clientError = (e: unknown) => isApiError(e) && e.status >= 400 && e.status < 500;

test('text/plain fallback: any body is a request, not one, or a 4xx; _method is a string when it is one', () => {
  fc.assert(
    fc.property(hostileJson, hostileJson, (method, rest) => {
      const body = { ...(typeof rest === 'object' && rest !== null && !Array.isArray(rest) ? rest : {}), _ApplicationId: 'app', _method: method };
      return onlyClientErrors(() => {
        const r = fromFallbackBody(JSON.parse(JSON.stringify(body)));
        assert.ok(r);
        assert.equal(typeof method === 'string' && method !== '', true, 'a non-string _method must be refused');
        assert.equal(r.method, String(method).toUpperCase());
      }, clientError);
    }),
    { numRuns: RUNS },
  );
});

test('batch bodies: any body and any item is parsed or refused with a 4xx', () => {
  fc.assert(
    fc.property(hostileJson, fc.array(hostileJson, { maxLength: 5 }), fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'get'), fc.string({ maxLength: 60 }), (body, items, method, path) => {
      onlyClientErrors(() => requestsOf(body), clientError);
      const requests = requestsOf({ requests: [...items, { method, path: `/1.1/${path}`, body: items[0] }] });
      requests.forEach((raw, i) => onlyClientErrors(() => parseBatchItem(raw, i), clientError));
      return true;
    }),
    { numRuns: RUNS },
  );
});

test('request bodies as text: any text parses or gets a 4xx', () => {
  fc.assert(fc.property(fc.oneof(fc.string({ maxLength: 200 }), hostileJson.map((v) => JSON.stringify(v) ?? '')), (text) => onlyClientErrors(() => parseJsonBody(text), clientError)), { numRuns: RUNS });
});
