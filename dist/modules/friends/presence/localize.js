/** The language used when the reader names none. */
export const DEFAULT_LANG = 'en_US';
/** `zh-cn`, `zh_CN`, `ZH-Hans-CN` -> `zh_CN` / `zh`: language lower case, region upper case. */
export function normalizeLang(tag) {
    const parts = tag.trim().split(/[-_]/).filter(Boolean);
    if (parts.length === 0 || !/^[A-Za-z]{2,3}$/.test(parts[0]))
        return undefined;
    const lang = parts[0].toLowerCase();
    const region = parts.slice(1).find((p) => /^[A-Za-z]{2}$/.test(p));
    return region ? `${lang}_${region.toUpperCase()}` : lang;
}
/** Candidate languages, best first: `lang` parameter, else Accept-Language by q, else the default. */
export function chooseLangs(langParam, acceptLanguage) {
    const fromParam = langParam ? normalizeLang(langParam) : undefined;
    if (fromParam)
        return [fromParam];
    const tags = (acceptLanguage ?? '')
        .split(',')
        .slice(0, 20)
        .map((part, i) => {
        const [tag, ...params] = part.split(';');
        const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)).find(Boolean);
        return { tag: normalizeLang(tag), q: q ? Number(q[1]) : 1, i };
    })
        .filter((t) => t.tag !== undefined && t.q > 0)
        .sort((a, b) => b.q - a.q || a.i - b.i)
        .map((t) => t.tag);
    return tags.length > 0 ? tags : [DEFAULT_LANG];
}
/** The texts of one token field for the candidate languages (exact match first, then same language). */
export function pickTexts(langs, key, candidates) {
    const ofKey = langs.filter((l) => l.key === key);
    for (const c of candidates) {
        const exact = ofKey.find((l) => l.lang === c);
        if (exact)
            return exact.content;
        const base = c.split('_')[0];
        const same = ofKey.find((l) => l.lang.split('_')[0] === base);
        if (same)
            return same.content;
    }
    return undefined;
}
/** Replaces %field% with the value of that variable field ("" when unset). */
function fill(text, variables) {
    return text.replace(/%([^%\s]{1,128})%/g, (_whole, name) => (Object.hasOwn(variables, name) ? variables[name] : ''));
}
/**
 * The presence of one user for one reader: every stored field that is still declared, tokens
 * localized. Fields no longer declared (base-info changed since) are not shown.
 */
export function localize(stored, fields, langs, candidates) {
    const variables = {};
    for (const f of fields)
        if (f.type === 'variable' && Object.hasOwn(stored, f.key))
            variables[f.key] = stored[f.key];
    const out = {};
    for (const f of fields) {
        if (!Object.hasOwn(stored, f.key))
            continue;
        const value = stored[f.key];
        if (f.type === 'variable') {
            out[f.key] = value;
            continue;
        }
        const texts = pickTexts(langs, f.key, candidates);
        const text = texts && Object.hasOwn(texts, value) ? texts[value] : undefined;
        out[f.key] = text === undefined ? '' : fill(text, variables);
    }
    return out;
}
//# sourceMappingURL=localize.js.map