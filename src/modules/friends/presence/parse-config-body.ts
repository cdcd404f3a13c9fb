/**
 * Parses the management bodies of rich presence (base-info and lang-info) into typed values; every
 * mistake is a presenceInvalidConfig error that names the member at fault.
 */
import { ApiError } from '../../../module-api/errors.ts';
import type { BaseInfo, PresenceField, PresenceLang } from './presence-config.ts';
import { bytes, FIELD_KEY, LANG_CODE, PRESENCE_LIMITS } from './presence-limits.ts';
import { friendsError } from '../friends-errors.ts';

function invalid(detail: string): ApiError {
  return friendsError('presenceInvalidConfig', `Invalid rich presence configuration: ${detail}.`);
}

function record(v: unknown, what: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw invalid(`${what} must be a JSON object`);
  return v as Record<string, unknown>;
}

function fieldKey(v: unknown, what: string): string {
  if (typeof v !== 'string' || v === '') throw invalid(`${what} must be a non-empty string`);
  if (bytes(v) > PRESENCE_LIMITS.maxKeyBytes) throw friendsError('presenceKeyTooLong', `Rich presence key too long: ${what} has ${bytes(v)} bytes, at most ${PRESENCE_LIMITS.maxKeyBytes} bytes.`);
  if (!FIELD_KEY.test(v)) throw invalid(`${what} ${JSON.stringify(v)} may hold only letters, digits, '_', '.' and '-'`);
  return v;
}

/** base-info: {enableRichMsg, enableOnlineMsg, richPresenceFields}; absent members keep `current`. */
export function parseBaseInfo(body: unknown, current: BaseInfo): BaseInfo {
  const b = record(body, 'the body');
  const flag = (name: string, now: boolean): boolean => {
    const v = b[name];
    if (v === undefined) return now;
    if (typeof v !== 'boolean') throw invalid(`${name} must be true or false`);
    return v;
  };
  let fields = current.fields;
  if (b.richPresenceFields !== undefined) {
    if (!Array.isArray(b.richPresenceFields)) throw invalid('richPresenceFields must be an array of {key, type}');
    if (b.richPresenceFields.length > PRESENCE_LIMITS.maxFields) {
      throw friendsError('presenceTooManyFields', `Too many rich presence fields: ${b.richPresenceFields.length} declared, at most ${PRESENCE_LIMITS.maxFields}.`);
    }
    const seen = new Set<string>();
    fields = b.richPresenceFields.map((f: unknown, i): PresenceField => {
      const r = record(f, `richPresenceFields[${i}]`);
      const key = fieldKey(r.key, `richPresenceFields[${i}].key`);
      if (r.type !== 'token' && r.type !== 'variable') throw invalid(`richPresenceFields[${i}].type must be "token" or "variable"`);
      if (seen.has(key)) throw invalid(`field ${JSON.stringify(key)} is declared twice`);
      seen.add(key);
      return { key, type: r.type };
    });
  }
  return { richMsgEnabled: flag('enableRichMsg', current.richMsgEnabled), onlineMsgEnabled: flag('enableOnlineMsg', current.onlineMsgEnabled), fields };
}

/** What a lang-info request asks. */
export type LangInfoAction = { kind: 'save'; langs: PresenceLang[] } | { kind: 'delete'; targets: { key: string; lang?: string }[] };

function entries(b: Record<string, unknown>): Record<string, unknown>[] {
  if (!Array.isArray(b.config) || b.config.length === 0) throw invalid('config must be a non-empty array of {key, lang, content}');
  if (b.config.length > PRESENCE_LIMITS.maxLangEntries) throw invalid(`config has ${b.config.length} entries, at most ${PRESENCE_LIMITS.maxLangEntries}`);
  return b.config.map((c: unknown, i) => record(c, `config[${i}]`));
}

function lang(v: unknown, what: string): string {
  if (typeof v !== 'string' || !LANG_CODE.test(v)) throw invalid(`${what} must have the form ll_CC, e.g. zh_CN or en_US`);
  return v;
}

/**
 * lang-info: `save` stores (replaces) the texts of each (key, lang); `delete` removes the texts
 * of each (key, lang), or of every language of a key when `lang` is absent. Token texts belong
 * to declared token fields only. Any other action is refused with presenceUnknownAction.
 */
export function parseLangInfo(body: unknown, fields: readonly PresenceField[]): LangInfoAction {
  const b = record(body, 'the body');
  if (b.action !== 'save' && b.action !== 'delete') {
    const shown = typeof b.action === 'string' ? JSON.stringify(b.action.slice(0, 64)) : 'missing';
    throw friendsError('presenceUnknownAction', `Unknown lang-info action (${shown}); use "save" or "delete".`);
  }
  const list = entries(b);
  if (b.action === 'delete') {
    return { kind: 'delete', targets: list.map((c, i) => ({ key: fieldKey(c.key, `config[${i}].key`), lang: c.lang === undefined ? undefined : lang(c.lang, `config[${i}].lang`) })) };
  }
  const langs = list.map((c, i): PresenceLang => {
    const key = fieldKey(c.key, `config[${i}].key`);
    const field = fields.find((f) => f.key === key);
    if (!field) throw invalid(`config[${i}].key ${JSON.stringify(key)} is not a declared field (declare it with base-info first)`);
    if (field.type !== 'token') throw invalid(`config[${i}].key ${JSON.stringify(key)} is a variable field; only token fields have texts`);
    const content = record(c.content, `config[${i}].content`);
    const tokens = Object.entries(content);
    if (tokens.length > PRESENCE_LIMITS.maxTokens) throw invalid(`config[${i}].content has ${tokens.length} tokens, at most ${PRESENCE_LIMITS.maxTokens}`);
    for (const [token, text] of tokens) {
      if (!token.startsWith('#') || token.length < 2 || bytes(token) > PRESENCE_LIMITS.maxValueBytes) throw invalid(`config[${i}].content key ${JSON.stringify(token.slice(0, 64))} must start with # (at most ${PRESENCE_LIMITS.maxValueBytes} bytes)`);
      if (typeof text !== 'string' || bytes(text) > PRESENCE_LIMITS.maxTextBytes) throw invalid(`config[${i}].content[${JSON.stringify(token)}] must be a string of at most ${PRESENCE_LIMITS.maxTextBytes} bytes`);
    }
    return { key, lang: lang(c.lang, `config[${i}].lang`), content: content as Record<string, string> };
  });
  return { kind: 'save', langs };
}
