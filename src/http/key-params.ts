import { ApiError } from '../errors/api-error.ts';
import { parseInclude } from '../objects/include.ts';
import { parseKeys, type KeySelection } from '../objects/project-keys.ts';
import { isFieldReference, nestedSegmentProblem } from '../model/names.ts';
import { isUnstorableText } from '../model/value-rules.ts';
import { text } from './query-params.ts';
import type { QueryParams } from './route.ts';

/** Most comma-separated entries in one `keys` parameter (a class has at most 300 fields). */
export const MAX_KEYS_ENTRIES = 500;

function badKey(path: string, why: string): never {
  throw new ApiError('invalidKeyName', `Invalid key name ${JSON.stringify(path.slice(0, 200))} in keys/include: ${why}.`);
}

/**
 * Checks one dotted field path of `keys` or `include` by the same rules as `where` keys: a
 * field name of letters, digits and underscore, then non-empty nested segments that do not start
 * with `$`, and never a prototype name. Projection and include run in memory on plain objects,
 * so a `__proto__` segment would otherwise walk into Object.prototype.
 */
function checkPath(path: string): void {
  const [top, ...rest] = path.split('.');
  if (!isFieldReference(top)) badKey(path, 'the field name is empty, __proto__ or has invalid characters');
  if (isUnstorableText(path)) badKey(path, 'NUL characters and unpaired surrogates are not allowed');
  for (const s of rest) {
    const problem = nestedSegmentProblem(s);
    if (problem) badKey(path, problem);
  }
}

/** The `keys` parameter ("a,b.c,-d"), validated (105), as a selection. */
export function keysParam(q: QueryParams): KeySelection | undefined {
  const raw = text(q, 'keys');
  if (raw === undefined) return undefined;
  const entries = raw.split(',').map((k) => k.trim()).filter(Boolean);
  if (entries.length > MAX_KEYS_ENTRIES) throw new ApiError('invalidQuery', `At most ${MAX_KEYS_ENTRIES} keys are allowed.`);
  for (const e of entries) checkPath(e.startsWith('-') ? e.slice(1) : e);
  return parseKeys(raw);
}

/** The `include` parameter ("a, b.c"), validated (105, limits 102), as paths. */
export function includeParam(q: QueryParams): string[][] {
  const paths = parseInclude(text(q, 'include'));
  for (const p of paths) checkPath(p.join('.'));
  return paths;
}
