import { z } from 'zod';
import { cursorQuery, paginationQuery } from '../http/pagination';
import { queryUnixSeconds, resourceId, unixTime } from '../http/validation';

/** An event type (`invoice.finalized`) or a group of them (`invoice.*`). */
const eventTypeFilter = z
  .string()
  .max(100)
  .regex(
    /^[a-z_]+(\.[a-z_]+)*\.([a-z_]+|\*)$/,
    'must be an event type such as invoice.finalized, or a group such as invoice.*',
  )
  .describe('Only events of this type (`invoice.finalized`) or group (`invoice.*`)');

export const listEventsQuery = z.strictObject({
  ...paginationQuery(100),
  ...cursorQuery(),
  type: eventTypeFilter.optional(),
  object: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_-]+$/, 'must be an object id (cus_..., sub_..., an invoice UUID)')
    .optional()
    .describe("Only events about this object (the id in the event's data)"),
  customer: resourceId
    .optional()
    .describe(
      "Only events about this customer: the customer's own and those of its subscriptions, invoices, payment methods and plans",
    ),
  created_gt: queryUnixSeconds.optional(),
  created_gte: queryUnixSeconds.optional(),
  created_lt: queryUnixSeconds.optional(),
  created_lte: queryUnixSeconds.optional(),
});

export const eventIdParams = z.strictObject({ id: resourceId.describe('evt_...') });

export const eventSchema = z
  .object({
    id: z.string().describe('Prefix evt_; the id webhook deliveries carry'),
    object: z.literal('event'),
    type: z.string().describe('The event type, as the webhook envelope names it in `event`'),
    created: unixTime.describe("Unix seconds, the event's time (a test clock's time for its objects)"),
    data: z.unknown().describe('The object as the event was written: the webhook envelope sends the same `data`'),
  })
  .meta({ id: 'Event' });

export type ListEventsQuery = z.output<typeof listEventsQuery>;
export type EventObject = z.output<typeof eventSchema>;
