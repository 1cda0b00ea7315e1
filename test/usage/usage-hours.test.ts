import fc from 'fast-check';
import { apiClient, createTestAccount, startWorkerApp, type ApiClient, type WorkerApp } from '../support/harness';
import { createCustomer } from '../support/payments';
import { expectStatus } from '../support/subscriptions';

// A period's total reads its whole hours from usage_hours and its partial first and last hours from the
// events (docs/decisions.md "Usage totals"). Here the totals through GET /meters/{id}/event-summaries, over
// ranges cut anywhere and in daily windows, are checked against a naive calculation over the events the API
// accepted (the first event of each id), for every aggregation, with duplicates, concurrent batches and
// events sharing a timestamp.

const HOUR_S = 3600;
const DAY_S = 86_400;
/** Three days of events, ending at the last whole hour. */
const END = Math.floor(Date.now() / 1000 / HOUR_S) * HOUR_S;
const START = END - 3 * DAY_S;

interface SentEvent {
  id: string;
  timestamp: number;
  value: number;
  /** The batch it was sent in (batches of the `last` meter are sent one after another). */
  batch: number;
}

let stack: WorkerApp;
let api: ApiClient;
let other: ApiClient;

beforeAll(async () => {
  stack = await startWorkerApp('usage-hours');
  api = stack.api;
  other = apiClient(stack.app.baseUrl, (await createTestAccount(stack.app.prisma, { name: 'Other' })).apiKey);
}, 60_000);

afterAll(() => stack?.close());

/**
 * `count` events over the three days (a seeded generator, the same each run), ids unique in the account
 * (`prefix`) but one in eight repeating an earlier id, many at the same second (hour starts, the ranges'
 * bounds), some hours empty.
 */
function eventsOf(prefix: string, count: number): Omit<SentEvent, 'batch'>[] {
  const [events] = fc.sample(
    fc.array(
      fc.record({
        repeat: fc.integer({ min: 0, max: 7 }),
        earlier: fc.nat(),
        timestamp: fc.oneof(
          fc.integer({ min: START, max: END - 1 }),
          fc.constantFrom(START, START + HOUR_S, END - HOUR_S, END - 1, START + DAY_S + 1234),
        ),
        value: fc.integer({ min: 0, max: 1000 }),
      }),
      { minLength: count, maxLength: count },
    ),
    { seed: 7919, numRuns: 1 },
  );
  return events!.map(({ repeat, earlier, timestamp, value }, index) => ({
    id: `${prefix}-${String(repeat === 0 && index > 0 ? earlier % index : index).padStart(6, '0')}`,
    timestamp,
    value,
  }));
}

async function send(meterEvent: string, customer: string, batches: SentEvent[][], concurrent: boolean) {
  const post = (batch: SentEvent[]) =>
    api.post('/usage-events', {
      events: batch.map((event) => ({
        id: event.id,
        event_name: meterEvent,
        customer,
        timestamp: event.timestamp,
        properties: { value: event.value, tag: `t${event.value % 7}` },
      })),
    });
  if (concurrent) {
    for (const response of await Promise.all(batches.map(post))) expectStatus(response, 202);
  } else {
    for (const batch of batches) expectStatus(await post(batch), 202);
  }
}

/** The naive total of `events` (the first of each id only) in [from, to). */
function naive(aggregation: string, accepted: SentEvent[], from: number, to: number): number {
  const inRange = accepted.filter((event) => event.timestamp >= from && event.timestamp < to);
  switch (aggregation) {
    case 'sum':
      return inRange.reduce((sum, event) => sum + event.value, 0);
    case 'count':
      return inRange.length;
    case 'max':
      return inRange.reduce((max, event) => Math.max(max, event.value), 0);
    case 'count_unique':
      return new Set(inRange.map((event) => `t${event.value % 7}`)).size;
    default: {
      // last: the latest timestamp; then the batch received last; then the greatest id.
      const latest = [...inRange].sort(
        (a, b) => a.timestamp - b.timestamp || a.batch - b.batch || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
      );
      return latest.at(-1)?.value ?? 0;
    }
  }
}

describe.each([
  { aggregation: 'sum', concurrent: true },
  { aggregation: 'count', concurrent: true },
  { aggregation: 'max', concurrent: true },
  { aggregation: 'count_unique', concurrent: true },
  // The latest event across batches depends on which was received last: one after another.
  { aggregation: 'last', concurrent: false },
])('$aggregation totals from whole hours and partial ones', ({ aggregation, concurrent }) => {
  let meter: { id: string };
  let customer: { id: string };
  let accepted: SentEvent[];

  beforeAll(async () => {
    const eventName = `hours_${aggregation}`;
    meter = expectStatus(
      await api.post('/meters', {
        name: `Hours ${aggregation}`,
        event_name: eventName,
        aggregation,
        ...(aggregation === 'count' ? {} : { value_property: aggregation === 'count_unique' ? 'tag' : 'value' }),
      }),
      201,
    );
    customer = await createCustomer(api);
    const events = eventsOf(aggregation, 1200);
    const batches = [0, 1, 2, 3].map((batch) =>
      events.slice(batch * 300, (batch + 1) * 300).map((event) => ({ ...event, batch })),
    );
    await send(eventName, customer.id, batches, concurrent);
    // The first event of each id counts: by batch when sent one after another; when concurrent, the test
    // reads which one each id's row holds (its value) from the totals of single ids below instead.
    const firstOfId = new Map<string, SentEvent>();
    for (const event of batches.flat()) if (!firstOfId.has(event.id)) firstOfId.set(event.id, event);
    accepted = [...firstOfId.values()];
    if (concurrent) {
      // Concurrent batches race for a repeated id: the row written holds one of them; read it back.
      const rows = await stack.app.prisma.usageEvent.findMany({
        where: { customerId: customer.id },
        select: { id: true, timestamp: true, properties: true },
      });
      accepted = rows.map((row) => ({
        id: row.id,
        timestamp: row.timestamp.getTime() / 1000,
        value: (row.properties as { value: number }).value,
        batch: 0,
      }));
    }
    expect(accepted.length).toBeGreaterThan(500);
  }, 60_000);

  it('matches the naive total over ranges cut anywhere, whole hours included', async () => {
    const ranges = fc.sample(
      fc
        .tuple(fc.integer({ min: START - HOUR_S, max: END + HOUR_S }), fc.integer({ min: 1, max: 3 * DAY_S }))
        .map(([from, length]) => [from, from + length] as const),
      { seed: 42, numRuns: 25 },
    );
    // The whole span, hour-aligned bounds, a range inside one hour, and bounds on events' own seconds.
    ranges.push(
      [START, END],
      [START + HOUR_S, END - HOUR_S],
      [START + 10, START + 20],
      [START + DAY_S + 1234, END - 1],
    );
    for (const [from, to] of ranges) {
      const page = expectStatus(
        await api.get(`/meters/${meter.id}/event-summaries?customer=${customer.id}&start_time=${from}&end_time=${to}`),
        200,
      );
      expect({ from, to, value: page.data[0].aggregated_value }).toEqual({
        from,
        to,
        value: naive(aggregation, accepted, from, to),
      });
    }
  });

  it('matches the naive total per UTC day', async () => {
    const from = Math.floor(START / DAY_S) * DAY_S;
    const to = Math.ceil(END / DAY_S) * DAY_S + DAY_S;
    const page = expectStatus(
      await api.get(
        `/meters/${meter.id}/event-summaries?customer=${customer.id}&start_time=${from}&end_time=${to}&value_grouping_window=day`,
      ),
      200,
    );
    const days = page.data.map((summary: { aggregated_value: number }) => summary.aggregated_value);
    expect(days).toEqual(
      Array.from({ length: (to - from) / DAY_S }, (_, day) =>
        naive(aggregation, accepted, from + day * DAY_S, from + (day + 1) * DAY_S),
      ),
    );
  });

  it("keeps the hours to the account: another account's key finds neither meter nor customer", async () => {
    expect(
      (
        await other.get(
          `/meters/${meter.id}/event-summaries?customer=${customer.id}&start_time=${START}&end_time=${END}`,
        )
      ).status,
    ).toBe(404);
  });
});

it('adds each event once to its hour, the duplicates of a batch and of a later one included', async () => {
  const eventName = 'hours_once';
  const meter = expectStatus(
    await api.post('/meters', {
      name: 'Hours once',
      event_name: eventName,
      aggregation: 'sum',
      value_property: 'value',
    }),
    201,
  );
  const customer = await createCustomer(api);
  const at = END - 2 * HOUR_S + 5;
  const event = (id: string, value: number) => ({
    id,
    event_name: eventName,
    customer: customer.id,
    timestamp: at,
    properties: { value },
  });
  expectStatus(await api.post('/usage-events', { events: [event('a', 5), event('a', 7), event('b', 1)] }), 202);
  expectStatus(await api.post('/usage-events', { events: [event('a', 9), event('b', 1), event('c', 2)] }), 202);
  const hours = await stack.app.prisma.usageHour.findMany({ where: { customerId: customer.id } });
  expect(hours).toHaveLength(1);
  expect(hours[0]).toMatchObject({ eventName, eventCount: 3n, lastId: 'c' });
  expect(Number(hours[0]!.valueSum)).toBe(8);
  const whole = expectStatus(
    await api.get(
      `/meters/${meter.id}/event-summaries?customer=${customer.id}&start_time=${END - 3 * HOUR_S}&end_time=${END}`,
    ),
    200,
  );
  expect(whole.data[0].aggregated_value).toBe(8);
});
