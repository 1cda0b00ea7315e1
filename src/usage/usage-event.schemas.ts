import { z } from 'zod';
import {
  MAX_RESOURCE_ID_LENGTH,
  MAX_UNIX_SECONDS,
  queryUnixSeconds,
  RESOURCE_ID,
  resourceId,
  unixSeconds,
  unixTime,
} from '../http/validation';
import { EVENT_NAME, eventName, MAX_EVENT_NAME_LENGTH, METER_AGGREGATIONS } from './meter.schemas';

/** The most events one POST /usage-events takes. */
export const MAX_EVENTS_PER_BATCH = 1000;
/** How far ahead of the customer's time an event's timestamp may be: clocks of machines differ a little. */
export const CLOCK_SKEW_SECONDS = 300;
/** Without an open subscription, how far back an event may be: Stripe's window for meter events. */
export const UNSUBSCRIBED_LOOKBACK_DAYS = 35;
/** The largest value a metered property holds: sums of a period stay exact in a double. */
export const MAX_USAGE_VALUE = 1_000_000_000_000;
const MAX_PROPERTIES = 10;
const MAX_PROPERTY_NAME_LENGTH = 40;
const MAX_PROPERTY_TEXT_LENGTH = 100;
const EVENT_ID = /^[\x21-\x7e]{1,100}$/;

const properties = z
  .record(
    z
      .string()
      .min(1, 'must not be empty')
      .max(MAX_PROPERTY_NAME_LENGTH, `must be at most ${MAX_PROPERTY_NAME_LENGTH} characters`),
    z.union([
      z.string().max(MAX_PROPERTY_TEXT_LENGTH, `must be at most ${MAX_PROPERTY_TEXT_LENGTH} characters`),
      z.number(),
      z.boolean(),
    ]),
  )
  .refine((value) => Object.keys(value).length <= MAX_PROPERTIES, `may hold at most ${MAX_PROPERTIES} properties`);

export const usageEventInput = z.strictObject({
  id: z
    .string()
    .regex(EVENT_ID, 'must be 1 to 100 visible ASCII characters')
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

const EVENT_FIELDS = new Set(['id', 'event_name', 'customer', 'timestamp', 'properties']);

/** A plain JSON object (what JSON.parse makes): not an array, no key zod would not see as its own. */
function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !Object.hasOwn(value, '__proto__');
}

function isCommonProperties(value: unknown): boolean {
  if (value === undefined) return true;
  if (!isJsonObject(value)) return false;
  const names = Object.keys(value);
  if (names.length > MAX_PROPERTIES) return false;
  for (const name of names) {
    if (name.length === 0 || name.length > MAX_PROPERTY_NAME_LENGTH) return false;
    const property = value[name];
    if (
      typeof property === 'string'
        ? property.length > MAX_PROPERTY_TEXT_LENGTH
        : typeof property === 'number'
          ? !Number.isFinite(property)
          : typeof property !== 'boolean'
    )
      return false;
  }
  return true;
}

function isCommonEvent(value: unknown): boolean {
  if (!isJsonObject(value)) return false;
  for (const field of Object.keys(value)) if (!EVENT_FIELDS.has(field)) return false;
  const { id, event_name: name, customer, timestamp } = value;
  return (
    typeof id === 'string' &&
    EVENT_ID.test(id) &&
    typeof name === 'string' &&
    name.length <= MAX_EVENT_NAME_LENGTH &&
    EVENT_NAME.test(name) &&
    typeof customer === 'string' &&
    customer.length <= MAX_RESOURCE_ID_LENGTH &&
    RESOURCE_ID.test(customer) &&
    typeof timestamp === 'number' &&
    Number.isInteger(timestamp) &&
    timestamp >= 1 &&
    timestamp <= MAX_UNIX_SECONDS &&
    isCommonProperties(value.properties)
  );
}

/**
 * The body of POST /usage-events checked without zod when every event is valid as sent (zod took about 7 ms of a
 * 1,000-event batch's API time: docs/performance.md, "Usage ingestion"): createUsageEventsBody's output (a missing
 * `properties` made {}), or undefined for anything else, which zod then checks and names. It accepts nothing
 * createUsageEventsBody refuses (test/usage/usage-events-common-shape.test.ts).
 */
export function commonUsageEventsBody(input: unknown): CreateUsageEventsInput | undefined {
  if (!isJsonObject(input)) return undefined;
  const keys = Object.keys(input);
  if (keys.length !== 1 || keys[0] !== 'events') return undefined;
  const { events } = input;
  if (!Array.isArray(events) || events.length < 1 || events.length > MAX_EVENTS_PER_BATCH) return undefined;
  if (!events.every(isCommonEvent)) return undefined;
  return {
    events: events.map((event: UsageEventInput) =>
      event.properties === undefined ? { ...event, properties: {} } : event,
    ),
  };
}

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
