/** Limits of rich presence (§7.4 for the per-user ones). */
export const PRESENCE_LIMITS = {
    /** Fields a user may hold, and fields base-info may declare. */
    maxFields: 20,
    /** Bytes (UTF-8) of a field key. */
    maxKeyBytes: 128,
    /** Bytes (UTF-8) of a field value. */
    maxValueBytes: 256,
    /** Setting values, and clearing values, are each allowed once per this window per user, ms. */
    rateWindowMs: 30_000,
    /** Ids per GET rich-presence/users. */
    maxIds: 100,
    /** Entries of one lang-info request. */
    maxLangEntries: 200,
    /** Tokens in one (key, lang) content object, and bytes of one display text. */
    maxTokens: 200,
    maxTextBytes: 1024,
};
/** UTF-8 length, the unit of the §7.4 limits. */
export function bytes(s) {
    return Buffer.byteLength(s, 'utf8');
}
/** Field keys: referenced as %key% in display texts, so no '%' or spaces; letters, digits, _ . - only. */
export const FIELD_KEY = /^[A-Za-z0-9_.-]+$/;
/** Languages of lang-info: `ll_CC` (zh_CN, en_US); a three-letter language is accepted too. */
export const LANG_CODE = /^[a-z]{2,3}_[A-Z]{2}$/;
//# sourceMappingURL=presence-limits.js.map