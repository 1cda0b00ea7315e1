import { z } from 'zod';
import { queryUnixSeconds, resourceId, unixSeconds, unixTime } from '../http/validation';
import { eventName, METER_AGGREGATIONS } from './meter.schemas';

/** The most events one POST /usage-events takes. */
export const MAX_EVENTS_PER_BATCH = 1000;
/** How far ahead of the customer's time an event's timestamp may be: clocks of machines differ a little. */
export const CLOCK_SKEW_SECONDS = 300;
/** Without an open subscription, how far back an event may be: Stripe's window for meter events. */
export const UNSUBSCRIBED_LOOKBACK_DAYS = 35;
/** The largest value a metered property holds: sums of a period stay exact in a double. */
export const MAX_USAGE_VALUE = 1_000_000_000_000;

const properties = z
  .record(
    z.string().min(1, 'must not be empty').max(40, 'must be at most 40 characters'),
    z.union([z.string().max(100, 'must be at most 100 characters'), z.number(), z.boolean()]),
  )
  .refine((value) => Object.keys(value).length <= 10, 'may hold at most 10 properties');

export const usageEventInput = z.strictObject({
  id: z
    .string()
    .regex(/^[\x21-\x7e]{1,100}$/, 'must be 1 to 100 visible ASCII characters')
    .describe(
      "The merchant's id of the event: a second event with it is accepted and counted once (the first one counts)",
    ),
  event_name: eventName.describe('The event name of an active meter of the account'),
  customer: resourceId.describe('A customer of the account (cus_...)'),
  timestamp: unixSeconds.describe(
    "When the usage happened, Unix seconds: not in the future (5 minutes allowed) nor before the start of the customer's oldest open period",
  ),
  properties: properties
    .default({})
    .describe(
      "At most 10 properties (names up to 40 characters, strings up to 100): the meter's value_property holds the usage, an integer from 0 to 10^12 (a number or decimal digits)",
    ),
});

export const createUsageEventsBody = z
  .strictObject({
    events: z
      .array(usageEventInput)
      .min(1, 'must hold at least 1 event')
      .max(MAX_EVENTS_PER_BATCH, `must hold at most ${MAX_EVENTS_PER_BATCH} events`),
  })
  .meta({ id: 'UsageEventsCreate' });

export const usageEventsAcceptedSchema = z
  .object({
    object: z.literal('usage_event_batch'),
    received: z.number().int().describe('The events of the batch'),
    counted: z.number().int().describe('The events whose id was new: written and counted'),
    duplicates: z
      .number()
      .int()
      .describe('The events whose id the account already had (or the batch twice): counted once'),
  })
  .meta({ id: 'UsageEventsAccepted' });

export const VALUE_GROUPING_WINDOWS = ['day'] as const;

export const eventSummariesQuery = z.strictObject({
  customer: resourceId.describe('The customer whose usage is aggregated'),
  start_time: queryUnixSeconds.describe(
    'Start of the range, Unix seconds (included); a UTC midnight with value_grouping_window=day',
  ),
  end_time: queryUnixSeconds.describe(
    'End of the range, Unix seconds (excluded); a UTC midnight with value_grouping_window=day',
  ),
  value_grouping_window: z
    .enum(VALUE_GROUPING_WINDOWS)
    .optional()
    .describe('day: one summary per UTC day of the range (at most 366); the whole range in one otherwise'),
});

export const meterEventSummarySchema = z
  .object({
    object: z.literal('billing.meter_event_summary'),
    meter: z.string(),
    customer: z.string(),
    aggregation: z.enum(METER_AGGREGATIONS),
    aggregated_value: z.number().describe("The meter's aggregation of the customer's events in [start_time, end_time)"),
    start_time: unixTime,
    end_time: unixTime,
  })
  .meta({ id: 'MeterEventSummary' });

export const meterEventSummariesSchema = z.object({
  object: z.literal('list'),
  data: z.array(meterEventSummarySchema),
});

export type UsageEventInput = z.output<typeof usageEventInput>;
export type CreateUsageEventsInput = z.output<typeof createUsageEventsBody>;
export type UsageEventsAccepted = z.output<typeof usageEventsAcceptedSchema>;
export type EventSummariesQuery = z.output<typeof eventSummariesQuery>;
export type MeterEventSummaries = z.output<typeof meterEventSummariesSchema>;
