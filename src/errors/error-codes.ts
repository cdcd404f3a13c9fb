/**
 * The one error catalogue. Every error Larder sends is named here with its LeanCloud code, its
 * HTTP status and its default message. LeanCloud reuses codes (code 1 is both a client mistake
 * and an internal error), so entries are keyed by name, not by code. `docs/errors.md` is kept in
 * sync with this table by a test.
 */
export interface ErrorSpec {
  readonly code: number;
  readonly status: number;
  readonly message: string;
}

function e(code: number, status: number, message: string): ErrorSpec {
  return { code, status, message };
}

export const ERRORS = {
  internal: e(1, 500, 'Internal server error. No information available.'),
  badRequest: e(1, 400, 'Bad request.'),
  objectNotFoundForUpdate: e(1, 404, 'Could not find object by id.'),
  forbidden: e(1, 403, 'Forbidden.'),
  masterKeyRequired: e(1, 403, 'The request must be signed by master key.'),
  classNotFound: e(101, 404, "Class or object doesn't exists."),
  invalidQuery: e(102, 400, 'Invalid query.'),
  invalidClassName: e(103, 400, "Missing or invalid classname. Classnames are case-sensitive. They must start with a letter, and a-zA-Z0-9_ are the only valid characters."),
  missingObjectId: e(104, 400, 'Missing or invalid object id.'),
  invalidKeyName: e(105, 400, "Invalid key name. Keys are case-sensitive and 'a-zA-Z0-9_' are the only valid characters."),
  invalidPointer: e(106, 400, 'Malformed pointer. Pointers must be arrays of a classname and an object id.'),
  invalidJson: e(107, 400, 'Malformed json object. A json dictionary is expected.'),
  incorrectType: e(111, 400, 'Field set to incorrect type.'),
  objectTooLarge: e(116, 400, 'The object is too large.'),
  readOnlyKey: e(117, 400, 'The key is read only.'),
  invalidNestedKey: e(121, 400, "Keys in NSDictionary values may not include '$' or '.'."),
  invalidAcl: e(123, 400, 'Invalid ACL. An ACL with an invalid format was saved.'),
  timeout: e(124, 503, 'The request timed out on the server. Typically this indicates the request is too expensive.'),
  invalidRelation: e(128, 400, 'Invalid relation data.'),
  duplicateValue: e(137, 400, 'A unique field was given a value that is already taken.'),
  quotaExceeded: e(154, 400, 'Exceeded an application threshold setting.'),
  answerTooLarge: e(154, 400, 'The answer would be too large.'),
  tooManyRequests: e(429, 429, 'Too many requests.'),
  databaseUnavailable: e(1, 503, 'The database cannot be reached right now; try again shortly.'),
  userNotFound: e(211, 400, 'Could not find user.'),
  invalidGeoPoint: e(302, 400, 'Invalid GeoPoint values.'),
  noEffect: e(305, 400, 'No effect on updating/deleting a document.'),
  unauthorized: e(401, 401, 'Unauthorized.'),
  notFound: e(404, 404, 'Not found.'),
  methodNotAllowed: e(405, 405, 'Method not allowed.'),
  payloadTooLarge: e(413, 413, 'Payload Too Large.'),
  unsupportedMediaType: e(415, 415, 'Unsupported Media Type.'),
  notReady: e(503, 503, 'Service unavailable.'),
  invalidRegex: e(102, 400, 'Invalid regular expression.'),
  queryTooComplex: e(102, 400, 'The query is too complex.'),
  invalidRoleName: e(139, 400, "Role's name is invalid."),
  roleAclRequired: e(1, 400, 'Role ACL is required.'),
  invalidClassPermissions: e(1, 400, 'Invalid class permissions.'),
  invalidSetting: e(1, 400, 'Invalid app setting.'),
  usernameMissing: e(200, 400, 'Username is missing or empty'),
  passwordMissing: e(201, 400, 'Password is missing or empty.'),
  usernameTaken: e(202, 400, 'Username has already been taken.'),
  emailTaken: e(203, 400, 'Email has already been taken.'),
  sessionRequired: e(206, 403, 'The user cannot be altered by a client without the session.'),
  authDataTaken: e(208, 400, 'An existing account already linked to another user.'),
  passwordMismatch: e(210, 400, 'The username and password mismatch.'),
  mobilePhoneTaken: e(214, 400, 'Mobile phone number has already been taken.'),
  invalidUsername: e(217, 400, 'Invalid username, it must be a non-blank string.'),
  invalidPassword: e(218, 400, 'Invalid password, it must be a non-blank string.'),
  loginLocked: e(219, 400, 'You have exceeded the maximum number of login attempts, please try again later, or consider resetting your password.'),
  linkedIdMissing: e(250, 400, 'Linked id missing from request'),
  invalidLinkedSession: e(251, 400, 'Invalid linked session'),
  invalidEmail: e(125, 400, 'The email address was invalid.'),
  invalidMobilePhone: e(127, 400, 'The mobile phone number was invalid.'),
  emailNotVerified: e(216, 400, "Email address isn't verified."),
  emailMissing: e(204, 400, 'The email is missing, and must be specified.'),
  mobilePhoneMissing: e(212, 400, 'The mobile phone number is missing, and must be specified.'),
  mobilePhoneNotFound: e(213, 400, 'A user with the specified mobile phone number was not found.'),
  smsTooFrequent: e(601, 400, "Can't send SMS too frequently."),
  smsSendFailed: e(602, 502, 'Fails to send message.'),
  invalidSmsCode: e(603, 400, 'Invalid SMS code.'),
  mailNotConfigured: e(1, 503, 'Sending email is not configured on this server.'),
  smsNotConfigured: e(1, 503, 'Sending SMS is not configured on this server.'),
  engineNotConfigured: e(1, 503, 'Cloud code is not configured on this server: set LARDER_ENGINE_URL (or LARDER_ENGINE_DIR) to the LeanEngine app.'),
  engineUnreachable: e(1, 502, 'The cloud code engine (LARDER_ENGINE_URL) did not answer.'),
  engineBadAnswer: e(141, 502, 'The cloud code engine gave an answer Larder cannot read.'),
  engineAnswerTooLarge: e(1, 502, 'The cloud code engine answered more than the body limit (LARDER_BODY_LIMIT).'),
  hookKeyRejected: e(141, 502, "The cloud code engine refused Larder's hook key: LARDER_HOOK_KEY must equal the engine's LEANCLOUD_APP_HOOK_KEY."),
  hookTimeout: e(141, 503, 'Cloud Code hook timed out.'),
  hookRefused: e(142, 400, 'Cloud Code validation failed.'),
  invalidSchedule: e(1, 400, 'Invalid scheduled function.'),
  scheduleNotFound: e(1, 404, 'Scheduled function not found.'),
} as const satisfies Record<string, ErrorSpec>;

/** Name of an entry in the catalogue. */
export type ErrorName = keyof typeof ERRORS;
