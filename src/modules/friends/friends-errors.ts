/**
 * The friends module's errors (docs/errors.md), declared through the module surface; the core
 * catalogue does not carry them.
 */
import { defineErrors } from '../../module-api/errors.ts';

/** Builds a friends error: `throw friendsError('presenceTooManyIds')`. */
export const friendsError = defineErrors('friends', {
  friendsDisabled: [1, 403, "The friends service is off. Turn on the app setting richPresenceSync ('real-time synchronization of rich information') with the master key: PUT /1.1/larder/settings {\"richPresenceSync\":true}, or `larder settings set richPresenceSync true`."],
  friendsMissingHeader: [400, 400, 'Missing request header.'],
  presenceInvalidRequest: [400, 400, 'Invalid rich presence request.'],
  presenceInvalidConfig: [400, 400, 'Invalid rich presence configuration.'],
  presenceUnknownAction: [400, 400, 'Unknown lang-info action; use "save" or "delete".'],
  presenceTooManyFields: [400, 400, 'Too many rich presence fields: at most 20.'],
  presenceKeyTooLong: [400, 400, 'Rich presence key too long: at most 128 bytes.'],
  presenceValueTooLong: [400, 400, 'Rich presence value too long: at most 256 bytes.'],
  presenceUnknownField: [400, 400, 'Rich presence field is not configured (POST /friend/v2/rich-presence/config/base-info).'],
  presenceInvalidToken: [400, 400, 'The value of a token field must start with #.'],
  presenceTooFrequent: [429, 429, 'Rich presence changed too often: setting and clearing are each allowed once per 30 seconds.'],
  presenceTooManyIds: [400, 400, 'Too many ids: at most 100 per request.'],
  friendsTooManyConnections: [429, 429, 'Too many friends WebSocket connections for this user: at most 20 on one server process.'],
  friendshipNotFound: [221, 404, 'Friendship not found.'],
  friendModelMismatch: [1, 400, 'This endpoint belongs to a friend model the app has not chosen.'],
});
