/** Most users one user may follow (TDS follow model, §7.3). */
export const MAX_FOLLOWEES = 5000;
/** Most users one user may block (§7.2, §7.3). */
export const MAX_BLOCKED = 100;
//# sourceMappingURL=limits.js.map