import { queryRows, type Queryable, type Statement } from '../db/sql';
import type { MeterAggregation } from './meter.schemas';

/** A usage event as it is written (the merchant's id, unique in the account). */
export interface NewUsageEvent {
  id: string;
  eventName: string;
  customerId: string;
  timestamp: Date;
  properties: Record<string, unknown>;
}

/**
 * The whole batch in one statement (arrays unnested: one prepared text whatever the batch's size); an id
 * the account already holds is left as it is (the first event with an id counts, docs/decisions.md
 * "Usage events"). Answers the ids written by this statement.
 */
const INSERT_USAGE_EVENTS: Statement = {
  name: 'usage_events_insert',
  text: `INSERT INTO usage_events (account_id, id, event_name, customer_id, timestamp, properties)
    SELECT $1, e.id, e.event_name, e.customer_id, e.timestamp, e.properties
    FROM unnest($2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::jsonb[])
      AS e(id, event_name, customer_id, timestamp, properties)
    ON CONFLICT (account_id, id) DO NOTHING
    RETURNING id`,
};

/** Writes `events` of the account, each id once; answers how many were new. */
export async function insertUsageEvents(db: Queryable, accountId: string, events: NewUsageEvent[]): Promise<number> {
  const rows = await queryRows<{ id: string }>(db, INSERT_USAGE_EVENTS, [
    accountId,
    events.map((event) => event.id),
    events.map((event) => event.eventName),
    events.map((event) => event.customerId),
    events.map((event) => event.timestamp.toISOString()),
    events.map((event) => JSON.stringify(event.properties)),
  ]);
  return rows.length;
}

/** Where a customer's usage may fall: its time (a test clock's) and the start of its oldest open period. */
export interface UsageWindow {
  customerId: string;
  /** The customer's test clock's time, or null on the wall clock. */
  clockTime: Date | null;
  /**
   * The earliest start, over its trialing, active or paused subscriptions, of the period before the current
   * one (its usage may still be reported late: docs/decisions.md §43), or of the current one when none was
   * billed before it; null without any such subscription.
   */
  oldestOpenPeriodStart: Date | null;
}

// The period before the current one is its subscription's last renewal before it (the primary key's range).
const USAGE_WINDOWS: Statement = {
  name: 'usage_windows',
  text: `SELECT c.id, t.frozen_time AS clock_time,
      (SELECT min(coalesce(previous.start, s.current_period_start)) FROM subscriptions s
        LEFT JOIN LATERAL (SELECT max(r.period_start) AS start FROM subscription_renewals r
          WHERE r.subscription_id = s.id AND r.period_start < s.current_period_start) previous ON true
        WHERE s.account_id = c.account_id AND s.customer_id = c.id AND s.status IN ('trialing', 'active', 'paused'))
        AS oldest_open
    FROM customers c LEFT JOIN test_clocks t ON t.id = c.test_clock_id
    WHERE c.account_id = $1 AND c.id = ANY($2::text[]) AND c.deleted_at IS NULL`,
};

/** The usage windows of the account's live customers among `customerIds` (another account's are absent). */
export async function usageWindows(db: Queryable, accountId: string, customerIds: string[]): Promise<UsageWindow[]> {
  const rows = await queryRows<{ id: string; clock_time: Date | null; oldest_open: Date | null }>(db, USAGE_WINDOWS, [
    accountId,
    customerIds,
  ]);
  return rows.map((row) => ({
    customerId: row.id,
    clockTime: row.clock_time === null ? null : new Date(row.clock_time),
    oldestOpenPeriodStart: row.oldest_open === null ? null : new Date(row.oldest_open),
  }));
}

const ANY_USAGE_EVENT: Statement = {
  name: 'usage_events_any',
  text: 'SELECT 1 AS found FROM usage_events WHERE account_id = $1 AND event_name = $2 LIMIT 1',
};

/** Whether the account holds any usage event named `eventName` (a meter's aggregation is then fixed). */
export async function hasUsageEvents(db: Queryable, accountId: string, eventName: string): Promise<boolean> {
  return (await queryRows(db, ANY_USAGE_EVENT, [accountId, eventName])).length > 0;
}

// What the aggregations read: an integer property, by a text match, so that no stored value can make the
// cast fail (ingestion refuses others for the meters that read them, docs/decisions.md "Usage events").
const INTEGER_VALUE = `CASE WHEN (properties->>$7) ~ '^-?[0-9]{1,15}$' THEN (properties->>$7)::numeric END`;
const BUCKET = `floor(extract(epoch FROM (timestamp - $4::timestamptz)) / $6::float8)::int`;
const RANGE = `account_id = $1 AND customer_id = $2 AND event_name = $3 AND timestamp >= $4::timestamptz AND timestamp < $5::timestamptz`;

const AGGREGATE: Record<MeterAggregation, Statement> = {
  sum: {
    name: 'usage_aggregate_sum',
    text: `SELECT ${BUCKET} AS bucket, coalesce(sum(${INTEGER_VALUE}), 0)::text AS value
      FROM usage_events WHERE ${RANGE} GROUP BY 1`,
  },
  count: {
    name: 'usage_aggregate_count',
    // $7 unused by count: named anyway so every aggregation takes the same parameters.
    text: `SELECT ${BUCKET} AS bucket, count(*)::text AS value
      FROM usage_events WHERE ${RANGE} AND $7::text IS NULL GROUP BY 1`,
  },
  count_unique: {
    name: 'usage_aggregate_count_unique',
    text: `SELECT ${BUCKET} AS bucket, count(DISTINCT properties->>$7)::text AS value
      FROM usage_events WHERE ${RANGE} GROUP BY 1`,
  },
  max: {
    name: 'usage_aggregate_max',
    text: `SELECT ${BUCKET} AS bucket, coalesce(max(${INTEGER_VALUE}), 0)::text AS value
      FROM usage_events WHERE ${RANGE} GROUP BY 1`,
  },
  last: {
    name: 'usage_aggregate_last',
    // The latest event's value; of events at the same time, the one received last.
    text: `SELECT DISTINCT ON (1) ${BUCKET} AS bucket, coalesce(${INTEGER_VALUE}, 0)::text AS value
      FROM usage_events WHERE ${RANGE} ORDER BY 1, timestamp DESC, received_at DESC, id DESC`,
  },
};

/** How a meter adds up events: its event name, aggregation and property. */
export interface MeterDefinition {
  eventName: string;
  aggregation: MeterAggregation;
  valueProperty: string | null;
}

/**
 * One customer's aggregated usage of a meter over [from, to), in windows of `windowMs` from `from` (the
 * whole range in one window when absent): one statement, one range of the index (account_id, customer_id,
 * event_name, timestamp). Answers a value per window, in order, 0 for a window without events.
 */
export async function meterUsage(
  db: Queryable,
  accountId: string,
  meter: MeterDefinition,
  customerId: string,
  range: { from: Date; to: Date; windowMs?: number },
): Promise<number[]> {
  const spanMs = range.to.getTime() - range.from.getTime();
  const windowMs = range.windowMs ?? spanMs;
  const windows = Math.max(1, Math.ceil(spanMs / windowMs));
  const rows = await queryRows<{ bucket: number; value: string }>(db, AGGREGATE[meter.aggregation], [
    accountId,
    customerId,
    meter.eventName,
    range.from.toISOString(),
    range.to.toISOString(),
    windowMs / 1000,
    meter.aggregation === 'count' ? null : meter.valueProperty,
  ]);
  const values = new Array<number>(windows).fill(0);
  for (const row of rows) values[row.bucket] = Number(row.value);
  return values;
}
