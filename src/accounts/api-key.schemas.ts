import { z } from 'zod';
import { ROLES } from '../http/auth';
import { resourceId, unixTime } from '../http/validation';

/** The most hours a rotated key keeps working beside its successor (as `npm run key:rotate`). */
export const MAX_OVERLAP_HOURS = 720;

export const apiKeyIdParams = z.strictObject({ id: resourceId });

export const createApiKeyBody = z
  .strictObject({
    role: z.enum(ROLES).describe('At most the role of the caller: a developer cannot issue a superadmin key'),
  })
  .openapi('ApiKeyInput');

export const rotateApiKeyBody = z
  .strictObject({
    overlap_hours: z
      .number()
      .int()
      .min(0)
      .max(MAX_OVERLAP_HOURS)
      .optional()
      .describe('How long the old key keeps working beside the new one (default 24)'),
    force: z
      .boolean()
      .optional()
      .describe('Rotate a key whose previous successor still works (that successor stays live)'),
  })
  .openapi('ApiKeyRotation');

export const apiKeySchema = z
  .object({
    id: z.string().describe('Prefix key_'),
    object: z.literal('api_key'),
    role: z.enum(ROLES),
    hint: z.string().describe('The first 12 characters of the key and an ellipsis; never the key itself'),
    status: z.enum(['active', 'expiring', 'revoked']).describe('expiring: rotated, working until `expires`'),
    created: unixTime,
    last_used: z.number().nullable().describe('Unix seconds, to within the 30 s authentication cache'),
    expires: z.number().nullable().describe('Unix seconds at which the key stops working (revoked or rotated)'),
    replaced_by: z.string().nullable().describe('The key its latest rotation issued'),
  })
  .openapi('ApiKey');

export const createdApiKeySchema = apiKeySchema
  .extend({ secret: z.string().describe('The key (sk_test_...), answered only here: only its SHA-256 is kept') })
  .openapi('ApiKeyCreated');

export const rotatedApiKeySchema = z
  .object({
    key: createdApiKeySchema.describe('The new key, its secret answered only here'),
    previous: apiKeySchema.describe('The rotated key, working until its `expires`'),
    left_live: z
      .string()
      .nullable()
      .describe('With `force`: the earlier successor, which still works; revoke it if no client uses it'),
  })
  .openapi('ApiKeyRotated');

export type CreateApiKeyInput = z.output<typeof createApiKeyBody>;
export type RotateApiKeyInput = z.output<typeof rotateApiKeyBody>;
export type ApiKeyObject = z.output<typeof apiKeySchema>;
