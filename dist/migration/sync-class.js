/**
 * Copying one class in `larder sync`: the full copy (a scan of the whole class, ordered by
 * objectId) and the incremental round (a scan of the objects whose updatedAt is at or after the
 * high-water mark minus an overlap). Each page is written with the shared migration writer
 * (idempotent upsert), then its owners' relations are copied, then the state is saved: a crash
 * between the two repeats at most one page, which the upsert absorbs.
 */
import { writeObjects } from './write-objects.js';
import { scanPage } from './sync-reader.js';
import { syncRelations } from './sync-relations.js';
import { SourceError } from './sync-source.js';
import { saveState } from './sync-state.js';
/** Objects per scan page (the API's largest). */
export const PAGE_SIZE = 1000;
/** A saved cursor older than this is not trusted (the API's cursors live 10 minutes). */
const CURSOR_MAX_AGE_MS = 9 * 60 * 1000;
function updatedAtOf(o) {
    const u = o.updatedAt;
    if (typeof u === 'string')
        return u;
    if (typeof u === 'object' && u !== null && 'iso' in u && typeof u.iso === 'string')
        return u.iso;
    return null;
}
/** ISO strings of one format compare as their times; parse to compare any two safely. */
function later(a, b) {
    if (a === null)
        return b;
    if (b === null)
        return a;
    return Date.parse(b) > Date.parse(a) ? b : a;
}
/** An error 102 about the cursor: the source no longer takes it (expired or from another process). */
function isCursorRefused(err) {
    return err instanceof SourceError && err.code === 102 && /cursor/i.test(err.message);
}
/** Writes one page and its relations; returns the counts. */
async function copyPage(deps, className, page, into) {
    if (!page.results.length)
        return;
    // returnACL=true asks for ACLs; a source that ignored it would make every object public on the
    // target (the writer's default ACL), so say so loudly.
    const noAcl = page.results.filter((o) => !('ACL' in o)).length;
    if (noAcl)
        deps.log(`WARNING ${className}: ${noAcl} objects came without an ACL; they get the default ACL (public read and write) here`);
    const summary = await writeObjects(deps.target, className, page.results);
    into.received += page.results.length;
    into.written += summary.inserted + summary.updated;
    into.skipped += summary.skipped.length;
    for (const s of summary.skipped.slice(0, 5))
        deps.log(`  ${className} ${s.objectId ?? `#${s.index}`} skipped: ${s.reason}`);
    if (summary.skipped.length > 5)
        deps.log(`  ${className}: ${summary.skipped.length - 5} more skipped on this page`);
    const skipped = new Set(summary.skipped.map((s) => s.objectId));
    const seen = deps.relationsCopied;
    const owners = page.results.filter((o) => !skipped.has(o.objectId) && !(seen && seen.get(o.objectId) === updatedAtOf(o)));
    into.relationRows += await syncRelations(deps, className, owners.map((o) => o.objectId), deps.relations);
    if (seen && deps.relations.length) {
        for (const o of owners) {
            const u = updatedAtOf(o);
            if (u !== null)
                seen.set(o.objectId, u);
        }
    }
    for (const o of page.results)
        into.newest = later(into.newest, updatedAtOf(o));
}
/**
 * The next page after the saved resume point: with the saved cursor while it is young; else,
 * or when the source refuses it (102), with `objectId > lastId` (equivalent, as scans go in
 * objectId order); and when the source refuses that too (a 400: LeanCloud may not take the
 * scan key in where), from the start again: the writes are idempotent, only time is lost.
 */
async function nextPage(deps, s, where, limit) {
    if (s.cursor !== null && s.cursorAt !== null && Date.now() - s.cursorAt < CURSOR_MAX_AGE_MS) {
        try {
            return await scanPage(deps.client, s.className, { limit, where, cursor: s.cursor });
        }
        catch (err) {
            if (!isCursorRefused(err))
                throw err;
        }
    }
    if (s.lastId !== null) {
        try {
            return await scanPage(deps.client, s.className, { limit, where: { ...where, objectId: { $gt: s.lastId } } });
        }
        catch (err) {
            if (!(err instanceof SourceError) || err.status !== 400)
                throw err;
            deps.log(`${s.className}: the source refused to resume after ${s.lastId} (${err.message}); scanning again from the start`);
        }
    }
    return scanPage(deps.client, s.className, { limit, where });
}
/**
 * Scans `where` page by page from the state's resume point, copying each page and calling
 * `afterPage` (which saves state). Falls back from a stale or refused cursor to
 * `objectId > lastId`, which the scan's objectId order makes equivalent.
 */
async function scanAll(deps, s, where, afterPage) {
    const res = { received: 0, written: 0, skipped: 0, relationRows: 0, newest: null, stopped: false };
    const limit = deps.pageSize ?? PAGE_SIZE;
    let pending = nextPage(deps, s, where, limit);
    for (;;) {
        const page = await pending;
        const last = page.results[page.results.length - 1];
        // The next page is read while this one is written: its request needs only this page's
        // cursor (and last id). The state is still saved only after this page is written.
        const ahead = page.cursor ? nextPage(deps, { ...s, cursor: page.cursor, cursorAt: Date.now(), lastId: last?.objectId ?? s.lastId }, where, limit) : undefined;
        ahead?.catch(() => { }); // awaited (and its error thrown) on the next turn, unless this turn fails first
        await copyPage(deps, s.className, page, res);
        if (last)
            s.lastId = last.objectId;
        s.cursor = page.cursor;
        s.cursorAt = page.cursor ? Date.now() : null;
        s.copied += page.results.length;
        const done = page.cursor === null;
        if (done) {
            s.lastId = null;
            s.cursor = null;
            s.cursorAt = null;
        }
        await afterPage(res);
        if (done || !ahead)
            return res;
        if (deps.stopping())
            return { ...res, stopped: true };
        pending = ahead;
    }
}
/**
 * The full copy of a class, resumed from the saved state. `sourceNow` (the source's clock when
 * this run started) becomes the high-water mark of a copy that starts now, so the incremental
 * rounds catch every change made while the copy ran.
 */
export async function fullCopy(deps, s, sourceNow) {
    if (s.highWater === null) {
        s.highWater = sourceNow.toISOString();
        await saveState(deps.target.db, deps.key, s);
    }
    const res = await scanAll(deps, s, undefined, async (r) => {
        if (s.cursor === null)
            s.phase = 'incremental';
        await saveState(deps.target.db, deps.key, s);
        deps.log(`${s.className}: full copy, ${s.copied} objects so far${r.relationRows ? `, ${r.relationRows} relation rows` : ''}`);
    });
    return res;
}
/**
 * One incremental round: every object with updatedAt >= high-water mark - overlap. The mark
 * moves to the newest updatedAt seen only when the round has finished (pages come in objectId
 * order, not updatedAt order), so an interrupted round is simply repeated.
 */
export async function incrementalRound(deps, s) {
    const base = s.highWater ? Date.parse(s.highWater) : 0;
    const from = new Date(Math.max(0, base - deps.overlapMs)).toISOString();
    const where = { updatedAt: { $gte: { __type: 'Date', iso: from } } };
    // A round always starts afresh: a cursor or lastId saved by an interrupted round is dropped.
    s.cursor = null;
    s.cursorAt = null;
    s.lastId = null;
    const res = await scanAll(deps, s, where, async () => {
        // Counts and the resume point are saved, the mark is not (see above).
        await saveState(deps.target.db, deps.key, s);
    });
    if (!res.stopped) {
        s.highWater = later(s.highWater, res.newest);
        await saveState(deps.target.db, deps.key, s);
        // Owners older than the next round's window will only come back with a new updatedAt.
        const seen = deps.relationsCopied;
        if (seen)
            for (const [id, u] of seen)
                if (Date.parse(u) < Date.parse(from))
                    seen.delete(id);
    }
    return res;
}
//# sourceMappingURL=sync-class.js.map