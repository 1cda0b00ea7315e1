import { execute, queryRows, type AnyTx, type Queryable, type Statement } from '../db/sql';
import { sqlDollarQuoted, sqlLiteral, type InlineSql, type SqlTx } from '../db/sql-transaction';
import type { MeterAggregation } from './meter.schemas';
import { activeMetersNamedSql, meterRuleOf, type MeterRule, type MeterRuleRow } from './meter.records';

/**
 * A usage event as POST /usage-events takes it and as it is written (the merchant's id, unique in the account;
 * `timestamp` in Unix seconds): the batch goes to the database as the one JSON text of these objects.
 */
export interface NewUsageEvent {
  id: string;
  event_name: string;
  customer: string;
  timestamp: number;
  properties: Record<string, unknown>;
}

// What the aggregations read: an integer property, by a text match, so that no stored value can make the
// cast fail (ingestion refuses others for the meters that read them, docs/decisions.md "Usage events").
const integerValue = (properties: string, property: string) =>
  `CASE WHEN (${properties}->>${property}) ~ '^-?[0-9]{1,15}$' THEN (${properties}->>${property})::numeric END`;

/** An incoming hour's latest event is later than the stored one's (the `last` aggregation's order). */
const LATER =
  '(excluded.last_timestamp, excluded.last_received_at, excluded.last_id) > (h.last_timestamp, h.last_received_at, h.last_id)';

/** An hour's latest event first, as the `last` aggregation orders events. */
const LATEST_FIRST = 'ORDER BY v.timestamp DESC, v.received_at DESC, v.id DESC';

/**
 * Adds the events of `source` (rows of customer_id, event_name, timestamp, received_at, id and `value`, the
 * meter's value or null) to their hours in usage_hours (docs/decisions.md "Usage totals"), in key order, for
 * the account `accountId` (an SQL expression). Ingestion and npm run seed:scale write hours with it.
 */
export function addToHoursSql(accountId: string, source: string): string {
  return `INSERT INTO usage_hours AS h (account_id, customer_id, event_name, hour, event_count, value_sum, value_max,
        last_timestamp, last_received_at, last_id, last_value)
      SELECT ${accountId}, v.customer_id, v.event_name, date_trunc('hour', v.timestamp, 'UTC'), count(*), sum(v.value),
        max(v.value), (array_agg(v.timestamp ${LATEST_FIRST}))[1], (array_agg(v.received_at ${LATEST_FIRST}))[1],
        (array_agg(v.id ${LATEST_FIRST}))[1], (array_agg(v.value ${LATEST_FIRST}))[1]
      FROM ${source} v GROUP BY 2, 3, 4 ORDER BY 2, 3, 4
      ON CONFLICT (account_id, customer_id, event_name, hour) DO UPDATE SET
        event_count = h.event_count + excluded.event_count,
        value_sum = h.value_sum + excluded.value_sum,
        value_max = greatest(h.value_max, excluded.value_max),
        last_timestamp = CASE WHEN ${LATER} THEN excluded.last_timestamp ELSE h.last_timestamp END,
        last_received_at = CASE WHEN ${LATER} THEN excluded.last_received_at ELSE h.last_received_at END,
        last_value = CASE WHEN ${LATER} THEN excluded.last_value ELSE h.last_value END,
        last_id = CASE WHEN ${LATER} THEN excluded.last_id ELSE h.last_id END`;
}

/**
 * The whole batch in one statement, its events one JSON array (one text whatever the batch's size:
 * one JSON.stringify of the batch instead of six arrays of 1,000 values each escaped by pg, docs/performance.md
 * "Usage ingestion"); an id the account already holds is left as it is (the first event with an id counts,
 * docs/decisions.md "Usage events"). Rows are written in id order and the events written added to their hours
 * (usage_hours, docs/decisions.md "Usage totals") in key order, in the same statement: two batches sharing ids or
 * hours wait for each other, never deadlock (in their own order, batches of the same ids in another order did).
 * `eventNames`/`properties` (text arrays): each event name's property whose values its meter adds up (null: none,
 * count and count_unique). `v` is materialized so that each event's value is read from its properties once, not
 * once per aggregate that takes it (sum, max and last: about 2 ms of the statement's 24 for 1,000 events,
 * docs/performance.md "A batch's p99"). Answers how many events were written.
 */
const insertUsageEventsSql = (account: string, events: string, eventNames: string, properties: string) =>
  `WITH written AS (
      INSERT INTO usage_events (account_id, id, event_name, customer_id, timestamp, properties)
      SELECT ${account}, e.event->>'id', e.event->>'event_name', e.event->>'customer',
        to_timestamp((e.event->>'timestamp')::bigint), coalesce(e.event->'properties', '{}'::jsonb)
      FROM jsonb_array_elements(${events}::jsonb) WITH ORDINALITY AS e(event, position)
      ORDER BY e.event->>'id', e.position
      ON CONFLICT (account_id, id) DO NOTHING
      RETURNING id, event_name, customer_id, timestamp, received_at, properties
    ), v AS MATERIALIZED (
      SELECT w.customer_id, w.event_name, w.timestamp, w.received_at, w.id,
        ${integerValue('w.properties', 'm.property')} AS value
      FROM written w LEFT JOIN unnest(${eventNames}, ${properties}) AS m(event_name, property) ON m.event_name = w.event_name
    ), hours AS (
      ${addToHoursSql(account, 'v')}
    )
    SELECT count(*)::int AS counted FROM written`;

/** `values` as an SQL text array, each quoted (null as NULL). */
const textArray = (values: (string | null)[]) =>
  `ARRAY[${values.map((value) => (value === null ? 'NULL' : sqlLiteral(value))).join(', ')}]::text[]`;

/**
 * Writes `events` of the account, each id once, adds them to their hours and commits the transaction, in one
 * round trip (SqlTx.commitWith: the hour rows the statement updates stay locked until COMMIT, which no longer waits
 * for the API; docs/performance.md "A batch's p99"); answers how many were new. The batch is written into the
 * statement's text as one JSON text, dollar-quoted, unescaped. `valueProperties`: each event name's property its
 * meter adds up (sum, max, last), null for the others.
 */
export async function insertUsageEventsAndCommit(
  tx: SqlTx,
  accountId: string,
  events: readonly NewUsageEvent[],
  valueProperties: Map<string, string | null>,
): Promise<number> {
  const [row] = (await tx.commitWith({
    text: insertUsageEventsSql(
      sqlLiteral(accountId),
      sqlDollarQuoted(JSON.stringify(events)),
      textArray([...valueProperties.keys()]),
      textArray([...valueProperties.values()]),
    ),
  })) as { counted: number }[];
  return row?.counted ?? 0;
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
  /**
   * Per event name, the latest end of the customer's ended subscriptions whose metered items billed its meter:
   * their final invoice billed its usage up to then, and no invoice will bill more (docs/decisions.md §43). An
   * ending's invoice closes it (usage_closed_at) in its own commit, before the workflow writes ended_at.
   */
  closedUntil: Map<string, Date>;
  /** The customer's active subscriptions with a billing threshold: told of its usage (docs/decisions.md §43). */
  thresholdSubscriptionIds: string[];
}

// The period before the current one is the start of its subscription's renewal before the latest (the primary
// key's range, read backwards): a period's invoice writes its renewal row in the transaction that reads the
// usage it bills, so the window closes with that commit, before the subscription's row shows the new period.
const usageWindowsSql = (account: string, customerIds: string) => `SELECT c.id, t.frozen_time AS clock_time,
      (SELECT min(coalesce(previous.start, s.current_period_start)) FROM subscriptions s
        LEFT JOIN LATERAL (SELECT r.period_start AS start FROM subscription_renewals r
          WHERE r.subscription_id = s.id ORDER BY r.period_start DESC OFFSET 1 LIMIT 1) previous ON true
        WHERE s.account_id = c.account_id AND s.customer_id = c.id AND s.status IN ('trialing', 'active', 'paused'))
        AS oldest_open,
      (SELECT json_object_agg(m.event_name, closed.until) FROM (
          SELECT p.meter_id, max(greatest(s.ended_at, s.usage_closed_at)) AS until FROM subscriptions s
            JOIN subscription_items i ON i.subscription_id = s.id
            JOIN prices p ON p.id = i.price_id AND p.meter_id IS NOT NULL
          WHERE s.account_id = c.account_id AND s.customer_id = c.id
            AND (s.ended_at IS NOT NULL OR s.usage_closed_at IS NOT NULL)
          GROUP BY p.meter_id) closed
        JOIN meters m ON m.id = closed.meter_id AND m.account_id = c.account_id) AS closed_until,
      (SELECT array_agg(s.id) FROM subscriptions s
        WHERE s.account_id = c.account_id AND s.customer_id = c.id AND s.status IN ('active', 'past_due')
          AND s.billing_threshold_amount_gte IS NOT NULL) AS threshold_subscriptions
    FROM customers c LEFT JOIN test_clocks t ON t.id = c.test_clock_id
    WHERE c.account_id = ${account} AND c.id = ANY(${customerIds}) AND c.deleted_at IS NULL`;
const USAGE_WINDOWS: Statement = { name: 'usage_windows', text: usageWindowsSql('$1', '$2::text[]') };

// Shared by batches of events, exclusive for a period's invoice: in customer order, so two batches never wait
// on each other in a cycle (a batch only ever waits for an invoice, which holds one customer).
const shareCustomersUsageSql = (customerIds: string) =>
  `SELECT count(pg_advisory_xact_lock_shared(hashtextextended('usage:' || ids.id, 0)))
    FROM (SELECT DISTINCT id FROM unnest(${customerIds}) AS id ORDER BY id) ids`;
const HOLD_CUSTOMER_USAGE: Statement = {
  name: 'usage_customer_hold',
  text: `SELECT pg_advisory_xact_lock(hashtextextended('usage:' || $1, 0))`,
};

/**
 * Holds the customers' usage for a batch of events until its transaction ends: the batch waits for a period's
 * invoice reading one of their totals, and that invoice for the batch (docs/decisions.md §43, "Late events"). SQL
 * sent with the transaction's BEGIN (sqlTransaction's `opening`), in its round trip, before the batch's first
 * statement reads them (docs/performance.md, "A batch's p99"); the ids are the batch's, quoted.
 */
export function shareCustomersUsageOnBegin(customerIds: string[]): InlineSql {
  return { text: shareCustomersUsageSql(`ARRAY[${customerIds.map(sqlLiteral).join(', ')}]::text[]`) };
}

/**
 * Holds the customer's usage for a period's invoice until the caller's transaction ends: batches of events
 * already checked are committed first (their events are in the totals it reads), later ones are checked
 * against the window its renewal row closes (docs/decisions.md §43, "Late events").
 */
export async function holdCustomerUsage(tx: AnyTx, customerId: string): Promise<void> {
  await execute(tx, HOLD_CUSTOMER_USAGE, [customerId]);
}

/** A row of USAGE_WINDOWS_SQL: its times as Dates, or as JSON's text when aggregated with json_agg. */
interface UsageWindowRow {
  id: string;
  clock_time: Date | string | null;
  oldest_open: Date | string | null;
  closed_until: Record<string, string> | null;
  threshold_subscriptions: string[] | null;
}

function usageWindowOf(row: UsageWindowRow): UsageWindow {
  return {
    customerId: row.id,
    clockTime: row.clock_time === null ? null : new Date(row.clock_time),
    oldestOpenPeriodStart: row.oldest_open === null ? null : new Date(row.oldest_open),
    closedUntil: new Map(Object.entries(row.closed_until ?? {}).map(([name, until]) => [name, new Date(until)])),
    thresholdSubscriptionIds: row.threshold_subscriptions ?? [],
  };
}

/** The usage windows of the account's live customers among `customerIds` (another account's are absent). */
export async function usageWindows(db: Queryable, accountId: string, customerIds: string[]): Promise<UsageWindow[]> {
  return (await queryRows<UsageWindowRow>(db, USAGE_WINDOWS, [accountId, customerIds])).map(usageWindowOf);
}

/**
 * usageWindows of `customerIds` and the account's active meters named by `eventNames`, locked FOR SHARE until
 * the transaction ends (activeMetersNamedSql), in one statement sent with the batch's BEGIN after its customers'
 * usage is held (shareCustomersUsageOnBegin; docs/performance.md "A batch's p99"): both read once no period's
 * invoice is reading these customers' totals, in a snapshot of its own taken after the hold. Its values are quoted
 * into its text (sqlTransaction's opening); `usageWindowsAndMetersOf` reads its rows.
 */
export function usageWindowsAndMetersOnBegin(
  accountId: string,
  customerIds: string[],
  eventNames: string[],
): InlineSql {
  const account = sqlLiteral(accountId);
  return {
    text: `WITH meters_named AS (${activeMetersNamedSql(account, textArray(eventNames))}),
      windows AS (${usageWindowsSql(account, textArray(customerIds))})
    SELECT (SELECT coalesce(json_agg(w), '[]') FROM windows w) AS windows,
      (SELECT coalesce(json_agg(m ORDER BY m.event_name), '[]') FROM meters_named m) AS meters`,
  };
}

/** The windows and meters of usageWindowsAndMetersOnBegin's rows. */
export function usageWindowsAndMetersOf(rows: unknown[]): { windows: UsageWindow[]; meters: MeterRule[] } {
  const [row] = rows as { windows: UsageWindowRow[]; meters: MeterRuleRow[] }[];
  return { windows: (row?.windows ?? []).map(usageWindowOf), meters: (row?.meters ?? []).map(meterRuleOf) };
}

const ANY_USAGE_EVENT: Statement = {
  name: 'usage_events_any',
  text: 'SELECT 1 AS found FROM usage_events WHERE account_id = $1 AND event_name = $2 LIMIT 1',
};

/** Whether the account holds any usage event named `eventName` (a meter's aggregation is then fixed). */
export async function hasUsageEvents(db: Queryable, accountId: string, eventName: string): Promise<boolean> {
  return (await queryRows(db, ANY_USAGE_EVENT, [accountId, eventName])).length > 0;
}

const INTEGER_VALUE = integerValue('properties', '$7');
const RANGE_KEY = 'account_id = $1 AND customer_id = $2 AND event_name = $3';

/**
 * The rows a total adds up (docs/decisions.md "Usage totals"): the events of [$4, $8) and [$9, $5), the
 * partial hours at either end, and the hours of [$8, $9) from usage_hours ($8 = $9 when none is whole), each
 * as (at, n, value, received_at, id). `event`: what an event row gives for n and value.
 */
function parts(event: { n: string; value: string }, hour: { n: string; value: string; at?: string }): string {
  const events = (from: string, to: string) =>
    `SELECT timestamp AS at, ${event.n} AS n, ${event.value} AS value, received_at, id FROM usage_events
      WHERE ${RANGE_KEY} AND timestamp >= ${from}::timestamptz AND timestamp < ${to}::timestamptz`;
  return `${events('$4', '$8')}
    UNION ALL ${events('$9', '$5')}
    UNION ALL SELECT ${hour.at ?? 'hour'}, ${hour.n}, ${hour.value}, last_received_at, last_id FROM usage_hours
      WHERE ${RANGE_KEY} AND hour >= $8::timestamptz AND hour < $9::timestamptz`;
}

const BUCKET = `floor(extract(epoch FROM (p.at - $4::timestamptz)) / $6::float8)::int`;

const AGGREGATE: Record<MeterAggregation, Statement> = {
  sum: {
    name: 'usage_aggregate_sum',
    text: `SELECT ${BUCKET} AS bucket, coalesce(sum(p.value), 0)::text AS value
      FROM (${parts({ n: '1', value: INTEGER_VALUE }, { n: 'event_count', value: 'value_sum' })}) p GROUP BY 1`,
  },
  count: {
    name: 'usage_aggregate_count',
    // $7 unused by count: named anyway so every aggregation takes the same parameters.
    text: `SELECT ${BUCKET} AS bucket, sum(p.n)::text AS value
      FROM (${parts({ n: '1::bigint', value: 'NULL::numeric' }, { n: 'event_count', value: 'NULL::numeric' })}) p
      WHERE $7::text IS NULL GROUP BY 1`,
  },
  count_unique: {
    // Distinct values do not add up by hour: every event of the range is read ($8 = $9 = $5: no hour).
    name: 'usage_aggregate_count_unique',
    text: `SELECT floor(extract(epoch FROM (timestamp - $4::timestamptz)) / $6::float8)::int AS bucket,
        count(DISTINCT properties->>$7)::text AS value
      FROM usage_events WHERE ${RANGE_KEY} AND timestamp >= $4::timestamptz AND timestamp < $5::timestamptz
        AND $8::timestamptz = $9::timestamptz GROUP BY 1`,
  },
  max: {
    name: 'usage_aggregate_max',
    text: `SELECT ${BUCKET} AS bucket, coalesce(max(p.value), 0)::text AS value
      FROM (${parts({ n: '1', value: INTEGER_VALUE }, { n: 'event_count', value: 'value_max' })}) p GROUP BY 1`,
  },
  last: {
    name: 'usage_aggregate_last',
    // The latest event's value; of events at the same time, the one received last. An hour's row stands for
    // its latest event (its time, received_at and id).
    text: `SELECT DISTINCT ON (1) ${BUCKET} AS bucket, coalesce(p.value, 0)::text AS value
      FROM (${parts({ n: '1', value: INTEGER_VALUE }, { n: 'event_count', value: 'last_value', at: 'last_timestamp' })}) p ORDER BY 1, p.at DESC, p.received_at DESC, p.id DESC`,
  },
};

const HOUR_MS = 3_600_000;

/**
 * The whole hours of [from, to) a total may read from usage_hours: each must fall inside one window (the
 * windows' bounds on hours), and distinct values (count_unique) never come from them. None: [to, to).
 */
function wholeHours(aggregation: MeterAggregation, from: number, to: number, windowMs: number): [number, number] {
  const first = Math.ceil(from / HOUR_MS) * HOUR_MS;
  const last = Math.floor(to / HOUR_MS) * HOUR_MS;
  const windowsOnHours = windowMs >= to - from || (windowMs % HOUR_MS === 0 && from % HOUR_MS === 0);
  if (aggregation === 'count_unique' || !windowsOnHours || first >= last) return [to, to];
  return [first, last];
}

/** How a meter adds up events: its event name, aggregation and property. */
export interface MeterDefinition {
  eventName: string;
  aggregation: MeterAggregation;
  valueProperty: string | null;
}

/**
 * One customer's aggregated usage of a meter over [from, to), in windows of `windowMs` from `from` (the
 * whole range in one window when absent): one statement, reading the whole hours from usage_hours and the
 * partial ones at either end from usage_events (two ranges of its index (account_id, customer_id,
 * event_name, timestamp)). Answers a value per window, in order, 0 for a window without events.
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
  const [hoursFrom, hoursTo] = wholeHours(meter.aggregation, range.from.getTime(), range.to.getTime(), windowMs);
  const rows = await queryRows<{ bucket: number; value: string }>(db, AGGREGATE[meter.aggregation], [
    accountId,
    customerId,
    meter.eventName,
    range.from.toISOString(),
    range.to.toISOString(),
    windowMs / 1000,
    meter.aggregation === 'count' ? null : meter.valueProperty,
    new Date(hoursFrom).toISOString(),
    new Date(hoursTo).toISOString(),
  ]);
  const values = new Array<number>(windows).fill(0);
  for (const row of rows) values[row.bucket] = Number(row.value);
  return values;
}
