/**
 * Fields a pushed object (LiveQuery) never carries: the hidden fields of its class as a client
 * sees them (a `_User`'s password hash, tokens, authData) and the app's client-invisible fields
 * (email, phone by default). A push has no caller to compare with, so a user's own row is no
 * exception, unlike a query (field-policy.ts).
 */
import type { AppContext } from '../app-context.ts';
import { invisibleOf } from '../model/invisible-fields.ts';
import { hiddenFieldsFor } from '../schema/hidden-fields.ts';

/** Field names to drop from a pushed object of `className`. */
export function unpushedFields(app: AppContext, className: string): readonly string[] {
  return [...hiddenFieldsFor(className, false), ...invisibleOf(app.settings.clientInvisibleFields, className)];
}
