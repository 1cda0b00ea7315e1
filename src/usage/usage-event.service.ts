import type { Db } from '../db/prisma';
import { sqlTransaction } from '../db/sql-transaction';
import { badRequest, notFound } from '../http/errors';
import { currentTime } from '../lib/clock-time';
import { DAY_MS } from '../lib/durations';
import { toUnixSeconds } from '../lib/time';
import { meterDefinition, meterOfAccount } from './meter.service';
import { meterRule, type MeterRule } from './meter.records';
import {
  insertUsageEventsAndCommit,
  meterUsage,
  shareCustomersUsageOnBegin,
  usageWindows,
  usageWindowsAndMetersOf,
  usageWindowsAndMetersOnBegin,
  type MeterDefinition,
  type UsageWindow,
} from './usage-event.records';
import type { Queryable } from '../db/sql';
import { columnValue } from '../lib/columns';
import { METER_AGGREGATIONS } from './meter.schemas';
import {
  CLOCK_SKEW_SECONDS,
  MAX_USAGE_VALUE,
  UNSUBSCRIBED_LOOKBACK_DAYS,
  type CreateUsageEventsInput,
  type EventSummariesQuery,
  type MeterEventSummaries,
  type UsageEventInput,
  type UsageEventsAccepted,
} from './usage-event.schemas';

/** Whether `value` is a usage amount a meter adds up: an integer 0..10^12, as a number or decimal digits. */
function isUsageValue(value: unknown): boolean {
  const number = typeof value === 'string' && /^[0-9]{1,13}$/.test(value) ? Number(value) : value;
  return typeof number === 'number' && Number.isInteger(number) && number >= 0 && number <= MAX_USAGE_VALUE;
}

/** The refusal of event `index` of the batch, or undefined when it may be written. */
function refusalOf(
  event: UsageEventInput,
  index: number,
  meters: Map<string, MeterRule>,
  windows: Map<string, UsageWindow>,
  now: Date,
): Error | undefined {
  const at = `events.${index}`;
  const meter = meters.get(event.event_name);
  if (!meter)
    return badRequest(
      `Invalid body parameter '${at}.event_name': no active meter of the account counts ${event.event_name}`,
      `${at}.event_name`,
      'meter_not_found',
    );
  if (meter.valueProperty !== null) {
    const value = event.properties[meter.valueProperty];
    const param = `${at}.properties.${meter.valueProperty}`;
    if (value === undefined)
      return badRequest(
        `Invalid body parameter '${param}': the meter reads it; it is required`,
        param,
        'parameter_missing',
      );
    if (meter.aggregation !== 'count_unique' && !isUsageValue(value))
      return badRequest(
        `Invalid body parameter '${param}': must be an integer from 0 to ${MAX_USAGE_VALUE} (a number or decimal digits)`,
        param,
      );
  }
  const window = windows.get(event.customer);
  if (!window) return notFound('customer', event.customer, `${at}.customer`);
  const customerNow = window.clockTime ?? now;
  const param = `${at}.timestamp`;
  if (event.timestamp > customerNow.getTime() / 1000 + CLOCK_SKEW_SECONDS)
    return badRequest(
      `Invalid body parameter '${param}': ${event.timestamp} is in the future (the customer's time is ${toUnixSeconds(customerNow)})`,
      param,
      'usage_event_in_future',
    );
  const earliest =
    window.oldestOpenPeriodStart ?? new Date(customerNow.getTime() - UNSUBSCRIBED_LOOKBACK_DAYS * DAY_MS);
  if (event.timestamp * 1000 < earliest.getTime())
    return badRequest(
      window.oldestOpenPeriodStart
        ? `Invalid body parameter '${param}': ${event.timestamp} is before the customer's oldest period still open to usage, which starts at ${toUnixSeconds(earliest)}`
        : `Invalid body parameter '${param}': ${event.timestamp} is more than ${UNSUBSCRIBED_LOOKBACK_DAYS} days ago and the customer has no open subscription`,
      param,
      'usage_event_too_old',
    );
  // A canceled or expired subscription's final invoice billed this meter's usage up to its end: an event before it
  // would be billed by no invoice, so it is refused rather than silently dropped (docs/decisions.md §43).
  const closedUntil = window.closedUntil.get(event.event_name);
  if (closedUntil && event.timestamp * 1000 < closedUntil.getTime())
    return badRequest(
      `Invalid body parameter '${param}': ${event.timestamp} is before ${toUnixSeconds(closedUntil)}, when the customer's subscription billing ${event.event_name} ended; its final invoice is made and no invoice bills usage before it`,
      param,
      'usage_period_closed',
    );
  return undefined;
}

/**
 * POST /usage-events (docs/decisions.md, "Usage events"): the batch is checked whole and refused whole at its
 * first bad event (400 or 404 naming `events.<n>.<field>`, nothing written), then written in one statement,
 * each id once. Three statements in one transaction, two round trips, whatever the batch's size: the customers'
 * usage held (shared) and the customers and the meters named (the meters locked FOR SHARE: how they aggregate
 * cannot change under the batch), both sent with BEGIN; then the insert, which adds the events written to their
 * hours (docs/decisions.md "Usage totals"), sent with COMMIT (docs/performance.md, "A batch's p99").
 */
export async function recordUsageEvents(
  prisma: Db,
  accountId: string,
  input: CreateUsageEventsInput,
): Promise<{ accepted: UsageEventsAccepted; thresholdSubscriptionIds: string[] }> {
  const now = currentTime();
  const { events } = input;
  const customerIds = [...new Set(events.map((event) => event.customer))];
  let windows: UsageWindow[] = [];
  // The windows are read once no period's invoice is reading these customers' totals (docs/decisions.md §43,
  // "Late events"): an event is either in the total an invoice bills or checked against the period it closed. The
  // customers' usage is held and then their windows read with BEGIN, in its round trip, each statement with a
  // snapshot of its own: the read's is taken once the hold is granted.
  const opening = [
    shareCustomersUsageOnBegin(customerIds),
    usageWindowsAndMetersOnBegin(accountId, customerIds, [...new Set(events.map((event) => event.event_name))]),
  ];
  const accepted = await sqlTransaction(
    prisma,
    async (tx, opened) => {
      const read = usageWindowsAndMetersOf(opened[1] ?? []);
      windows = read.windows;
      const windowByCustomer = new Map(windows.map((window) => [window.customerId, window]));
      const { meters } = read;
      const meterByName = new Map(meters.map((meter) => [meter.eventName, meter]));
      for (const [index, event] of events.entries()) {
        const refusal = refusalOf(event, index, meterByName, windowByCustomer, now);
        if (refusal) throw refusal;
      }
      const counted = await insertUsageEventsAndCommit(
        tx,
        accountId,
        events,
        // What each meter adds up by hour (docs/decisions.md "Usage totals"): count and distinct values need no value.
        new Map(
          meters.map((meter) => [
            meter.eventName,
            ['sum', 'max', 'last'].includes(meter.aggregation) ? meter.valueProperty : null,
          ]),
        ),
      );
      return {
        object: 'usage_event_batch' as const,
        received: events.length,
        counted,
        duplicates: events.length - counted,
      };
    },
    undefined,
    opening,
  );
  const thresholdSubscriptionIds = accepted.counted === 0 ? [] : windows.flatMap((w) => w.thresholdSubscriptionIds);
  return { accepted, thresholdSubscriptionIds };
}

/** The most daily summaries one request answers: a year. */
const MAX_DAY_WINDOWS = 366;

/**
 * GET /meters/{id}/event-summaries: the meter's aggregation of one customer's events over
 * [start_time, end_time), whole or per UTC day.
 */
export async function meterEventSummaries(
  prisma: Db,
  accountId: string,
  meterId: string,
  query: EventSummariesQuery,
): Promise<MeterEventSummaries> {
  const meter = await meterOfAccount(prisma, accountId, meterId);
  if ((await usageWindows(prisma, accountId, [query.customer])).length === 0)
    throw notFound('customer', query.customer, 'customer');
  if (query.end_time <= query.start_time)
    throw badRequest("Invalid query parameter 'end_time': must be after start_time", 'end_time');
  const daySeconds = DAY_MS / 1000;
  const byDay = query.value_grouping_window === 'day';
  if (byDay) {
    for (const param of ['start_time', 'end_time'] as const)
      if (query[param] % daySeconds !== 0)
        throw badRequest(
          `Invalid query parameter '${param}': must be a UTC midnight (a multiple of 86400) with value_grouping_window=day`,
          param,
        );
    if ((query.end_time - query.start_time) / daySeconds > MAX_DAY_WINDOWS)
      throw badRequest(
        `Invalid query parameter 'end_time': at most ${MAX_DAY_WINDOWS} days with value_grouping_window=day`,
        'end_time',
      );
  }
  const values = await meterUsage(prisma, accountId, meterDefinition(meter), query.customer, {
    from: new Date(query.start_time * 1000),
    to: new Date(query.end_time * 1000),
    windowMs: byDay ? DAY_MS : undefined,
  });
  const step = byDay ? daySeconds : query.end_time - query.start_time;
  return {
    object: 'list',
    data: values.map((value, index) => ({
      object: 'billing.meter_event_summary' as const,
      meter: meter.id,
      customer: query.customer,
      aggregation: meterDefinition(meter).aggregation,
      aggregated_value: value,
      start_time: query.start_time + index * step,
      end_time: query.start_time + (index + 1) * step,
    })),
  };
}

/**
 * One customer's usage of the meter `meterId` over [from, to), in windows of `windowMs` from `from` (one window
 * when absent) (docs/decisions.md §43: billing in arrears, the upcoming invoice and a subscription's usage read
 * it). The meter is read whatever its status: an inactive meter's events already counted are still billed.
 * Runs in any transaction (billing's), hence the statement, not a model call.
 */
export async function meterWindows(
  db: Queryable,
  accountId: string,
  meterId: string,
  customerId: string,
  range: { from: Date; to: Date; windowMs?: number },
): Promise<{ aggregation: MeterDefinition['aggregation']; values: number[] }> {
  const rule = await meterRule(db, accountId, meterId);
  if (!rule) throw notFound('meter', meterId, 'recurring.meter');
  const definition: MeterDefinition = {
    eventName: rule.eventName,
    aggregation: columnValue(METER_AGGREGATIONS, rule.aggregation, 'meters.aggregation'),
    valueProperty: rule.valueProperty,
  };
  return {
    aggregation: definition.aggregation,
    values: await meterUsage(db, accountId, definition, customerId, range),
  };
}

/** meterWindows over [from, to) in one window: the total billing in arrears prices. */
export async function meterTotal(
  db: Queryable,
  accountId: string,
  meterId: string,
  customerId: string,
  range: { from: Date; to: Date },
): Promise<number> {
  return (await meterWindows(db, accountId, meterId, customerId, range)).values[0] ?? 0;
}
