/**
 * The value rules of a user's contact fields (email, mobile phone number): one place for the user
 * endpoints, the mail flows and export notifications.
 */

/** Longest email address (RFC 5321 path limit); indexed values stay small. */
const MAX_EMAIL_LENGTH = 254;
// Deliberately loose: one @, no whitespace. Deliverability is the mail flow's business.
const EMAIL = /^[^\s@]+@[^\s@]+$/;
// +<country code><digits>, or digits only (LeanCloud treats those as +86); no spaces or dashes.
const MOBILE_PHONE = /^\+?[0-9]{5,20}$/;

/** True for an email address the user endpoints accept. */
export function isValidEmail(v: string): boolean {
  return v.length <= MAX_EMAIL_LENGTH && EMAIL.test(v);
}

/** True for a mobile phone number the user endpoints accept. */
export function isValidMobilePhone(v: string): boolean {
  return MOBILE_PHONE.test(v);
}
