import { z } from 'zod';
import { cursorQuery, paginationQuery } from '../http/pagination';
import { resourceId, unixTime } from '../http/validation';
import { nonPublicHostReason, privateTargetsAllowed } from './address-policy';

export const MAX_URL_LENGTH = 2048;

/**
 * Absolute http(s) URLs only, without credentials. Hosts that are localhost or a literal private, loopback or link-local
 * address are refused unless WEBHOOK_ALLOW_PRIVATE=true; names are checked when delivering, against
 * the address actually connected to (see address-policy.ts).
 */
export const destinationUrl = z
  .string()
  .max(MAX_URL_LENGTH, `must be at most ${MAX_URL_LENGTH} characters`)
  .superRefine((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be an absolute http or https URL' });
      return;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      ctx.addIssue({ code: 'custom', message: 'must use http or https' });
      return;
    }
    if (!url.hostname) {
      ctx.addIssue({ code: 'custom', message: 'must name a host' });
      return;
    }
    if (url.username || url.password) {
      // They would be sent with every delivery and shown in every answer that echoes the URL.
      ctx.addIssue({ code: 'custom', message: 'must not carry a user name or password' });
      return;
    }
    const refused = privateTargetsAllowed() ? null : nonPublicHostReason(url.hostname);
    if (refused) ctx.addIssue({ code: 'custom', message: refused });
  })
  .describe('Absolute http(s) URL the events are POSTed to');

export const destinationBody = z.strictObject({ url: destinationUrl }).openapi('WebhookDestinationInput');

export const destinationIdParams = z.strictObject({ id: resourceId });

export const deliveryIdParams = z.strictObject({ id: resourceId.describe('Delivery id (whd_...)') });

export const destinationSchema = z
  .object({
    id: z.string().describe('Prefix we_'),
    object: z.literal('webhook_destination'),
    url: z.string(),
    active: z.boolean(),
    status: z.enum(['enabled', 'disabled']),
    created: unixTime,
    updated: z.number(),
  })
  .openapi('WebhookDestination');

export const createdDestinationSchema = destinationSchema
  .extend({
    secret: z.string().describe('Signing secret (whsec_...); answered only on creation and by roll-secret'),
  })
  .openapi('WebhookDestinationCreated');

export const DELIVERY_STATUSES = ['pending', 'retry', 'success', 'failure'] as const;

export const logsQuery = z.strictObject({
  ...paginationQuery(100),
  ...cursorQuery(),
  status: z.enum(DELIVERY_STATUSES).optional(),
  event_type: z
    .string()
    .regex(/^[a-z_]+(\.[a-z_]+)+$/, 'must be an event type such as customer.created')
    .max(100)
    .optional(),
  destination: resourceId.optional().describe('Destination id (we_...)'),
  event: resourceId.optional().describe('Event id (evt_...)'),
});

export const attemptSchema = z.object({
  attempt: z.number(),
  attempted_at: z.number().describe('Unix seconds, when the request was sent'),
  url: z.string(),
  outcome: z.enum(['success', 'retryable', 'permanent']),
  status_code: z.number().nullable(),
  error: z.string().nullable(),
  duration_ms: z.number(),
});

export const deliveryLogSchema = z
  .object({
    id: z.string().describe('Prefix whd_'),
    object: z.literal('webhook_delivery'),
    event_id: z.string(),
    event_type: z.string(),
    destination: z.string(),
    destination_url: z
      .string()
      .describe("The destination's URL as it is now (a deleted one's last); each attempt's `url` is where it was sent"),
    workflow_id: z.string().describe('Find the delivery in the Temporal Web UI by this id'),
    resend: z.number().int().describe("0 for the event's first delivery to the destination; 1, 2... for each resend"),
    payload: z.object({ id: z.string(), event: z.string(), createdAt: z.string(), data: z.unknown() }),
    status: z.enum(DELIVERY_STATUSES),
    attempt_count: z.number(),
    status_code: z.number().nullable().describe('Response status of the last answered attempt'),
    error: z.string().nullable(),
    next_attempt_at: z.number().nullable(),
    completed_at: z.number().nullable(),
    created: unixTime,
    updated: z.number(),
    attempts: z.array(attemptSchema),
  })
  .openapi('WebhookDeliveryLog');

export type DestinationInput = z.output<typeof destinationBody>;
export type DestinationObject = z.output<typeof destinationSchema>;
export type LogsQuery = z.output<typeof logsQuery>;
export type DeliveryLogObject = z.output<typeof deliveryLogSchema>;
