/**
 * What a hook's HTTP answer means for Larder (spec/leancloud-services.md §2, "Answers" and
 * "Errors"): 200 with JSON is the hook's result; 404 means the engine does not define it (the
 * hook list was stale: the write goes on); 401 is a key mismatch the operator must fix; any
 * other status is the hook refusing, which the client sees as code 142 with the hook's message.
 */
import { ApiError } from '../errors/api-error.ts';
import type { BufferedAnswer } from './engine-client.ts';

/** A hook's answer: its JSON, or `missing` when the engine has no such hook. */
export type HookOutcome = { readonly kind: 'ok'; readonly value: unknown } | { readonly kind: 'missing' };

/** Longest hook error detail passed on to clients. */
const MAX_DETAIL = 1000;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The message of an `{code, error}` answer, if it is one. */
function errorText(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const e = (body as Record<string, unknown>).error;
  if (typeof e === 'string') return e;
  if (e !== undefined) return JSON.stringify(e);
  return undefined;
}

/** Turns an engine answer to a hook call into its outcome, or throws the client's error. */
export function hookOutcome(answer: BufferedAnswer): HookOutcome {
  const body = parseJson(answer.text);
  if (answer.status >= 200 && answer.status < 300) {
    if (body === undefined) throw new ApiError('engineBadAnswer', 'The cloud code engine answered a hook call with something that is not JSON.');
    return { kind: 'ok', value: body };
  }
  const detail = errorText(body);
  if (answer.status === 404) return { kind: 'missing' };
  if (answer.status === 401) {
    if (detail?.startsWith('Hook key check failed')) throw new ApiError('hookKeyRejected');
    throw new ApiError('hookKeyRejected', "The cloud code engine refused Larder's credentials: its LEANCLOUD_APP_ID and LEANCLOUD_APP_MASTER_KEY must be this app's.");
  }
  if (detail === undefined) throw new ApiError('engineBadAnswer', `The cloud code engine answered a hook call with HTTP ${answer.status} and no {code, error} body.`);
  throw refusal(detail);
}

/** A before-hook's refusal as the client sees it (LeanCloud's wording, "detail : " included). */
export function refusal(detail: string): ApiError {
  const d = detail.length > MAX_DETAIL ? `${detail.slice(0, MAX_DETAIL)}...` : detail;
  return new ApiError('hookRefused', `Cloud Code validation failed. Error detail : ${d}`);
}
