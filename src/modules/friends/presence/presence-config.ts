import type { AppContext } from '../../../module-api/context.ts';
import { sql, type Queryable } from '../../../module-api/data.ts';
import { ensurePresenceTables } from './presence-tables.ts';

/** A declared presence field: `token` values are '#names' shown localized, `variable` values raw. */
export interface PresenceField {
  readonly key: string;
  readonly type: 'token' | 'variable';
}

/** Display texts of one token field in one language: '#token' -> text with %field% references. */
export interface PresenceLang {
  readonly key: string;
  readonly lang: string;
  readonly content: Readonly<Record<string, string>>;
}

/** The stored rich presence configuration of the app (base-info + lang-info). */
export interface PresenceConfig {
  readonly richMsgEnabled: boolean;
  readonly onlineMsgEnabled: boolean;
  readonly fields: readonly PresenceField[];
  readonly langs: readonly PresenceLang[];
}

/** What base-info stores. */
export interface BaseInfo {
  readonly richMsgEnabled: boolean;
  readonly onlineMsgEnabled: boolean;
  readonly fields: readonly PresenceField[];
}

/** Before any base-info: no notifications, no fields (so nothing can be set yet). */
const EMPTY_BASE: BaseInfo = { richMsgEnabled: false, onlineMsgEnabled: false, fields: [] };

function parseFields(v: unknown): PresenceField[] {
  if (!Array.isArray(v)) return [];
  return v.flatMap((f: unknown) => {
    if (typeof f !== 'object' || f === null) return [];
    const r = f as Record<string, unknown>;
    return typeof r.key === 'string' && (r.type === 'token' || r.type === 'variable') ? [{ key: r.key, type: r.type }] : [];
  });
}

function parseContent(v: unknown): Record<string, string> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return {};
  return Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

/** base-info as stored (defaults before the first save). */
export async function loadBaseInfo(db: Queryable): Promise<BaseInfo> {
  const rows = await db.query<{ rich_msg: boolean; online_msg: boolean; fields: unknown }>(
    sql`SELECT rich_msg, online_msg, fields FROM _larder_presence_config WHERE id = 1`,
  );
  const r = rows[0];
  return r ? { richMsgEnabled: r.rich_msg, onlineMsgEnabled: r.online_msg, fields: parseFields(r.fields) } : EMPTY_BASE;
}

/**
 * The whole configuration, in one statement (it is read on every presence read and change, and
 * another process may change it, so it is not cached).
 */
export async function loadPresenceConfig(app: AppContext): Promise<PresenceConfig> {
  await ensurePresenceTables(app.db);
  const rows = await app.db.query<{ base: { rich_msg: boolean; online_msg: boolean; fields: unknown } | null; langs: unknown }>(sql`SELECT
    (SELECT json_build_object('rich_msg', rich_msg, 'online_msg', online_msg, 'fields', fields) FROM _larder_presence_config WHERE id = 1) AS base,
    (SELECT coalesce(json_agg(json_build_object('field', field, 'lang', lang, 'content', content) ORDER BY field COLLATE "C", lang COLLATE "C"), '[]'::json)
       FROM _larder_presence_lang) AS langs`);
  const r = rows[0];
  const base: BaseInfo = r?.base ? { richMsgEnabled: r.base.rich_msg, onlineMsgEnabled: r.base.online_msg, fields: parseFields(r.base.fields) } : EMPTY_BASE;
  const langs = Array.isArray(r?.langs) ? r.langs : [];
  return {
    ...base,
    langs: langs.flatMap((l: unknown) => {
      if (typeof l !== 'object' || l === null) return [];
      const o = l as Record<string, unknown>;
      return typeof o.field === 'string' && typeof o.lang === 'string' ? [{ key: o.field, lang: o.lang, content: parseContent(o.content) }] : [];
    }),
  };
}

/** Replaces base-info (flags and the list of fields). */
export async function saveBaseInfo(app: AppContext, base: BaseInfo): Promise<void> {
  await ensurePresenceTables(app.db);
  await app.db.query(sql`INSERT INTO _larder_presence_config (id, rich_msg, online_msg, fields)
    VALUES (1, ${base.richMsgEnabled}, ${base.onlineMsgEnabled}, ${JSON.stringify(base.fields)}::jsonb)
    ON CONFLICT (id) DO UPDATE SET rich_msg = EXCLUDED.rich_msg, online_msg = EXCLUDED.online_msg, fields = EXCLUDED.fields`);
}

/** Saves (replaces) the texts of each (key, lang), in one transaction. */
export async function saveLangs(app: AppContext, langs: readonly PresenceLang[]): Promise<void> {
  await ensurePresenceTables(app.db);
  await app.db.transaction(async (tx) => {
    for (const l of langs) {
      await tx.query(sql`INSERT INTO _larder_presence_lang (field, lang, content) VALUES (${l.key}, ${l.lang}, ${JSON.stringify(l.content)}::jsonb)
        ON CONFLICT (field, lang) DO UPDATE SET content = EXCLUDED.content`);
    }
  });
}

/** Deletes the texts of (key, lang), or of every language of key when lang is absent. */
export async function deleteLangs(app: AppContext, targets: readonly { key: string; lang?: string }[]): Promise<void> {
  await ensurePresenceTables(app.db);
  await app.db.transaction(async (tx) => {
    for (const t of targets) {
      if (t.lang === undefined) await tx.query(sql`DELETE FROM _larder_presence_lang WHERE field = ${t.key}`);
      else await tx.query(sql`DELETE FROM _larder_presence_lang WHERE field = ${t.key} AND lang = ${t.lang}`);
    }
  });
}
