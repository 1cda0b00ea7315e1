import { apiClient, createTestAccount, startWorkerApp, type ApiClient, type WorkerApp } from '../support/harness';
import { advanceClock, customerOnClock, subscribeOnClock } from '../support/clocks';
import { createCustomer } from '../support/payments';
import { expectStatus, recurringPrice } from '../support/subscriptions';
import { queryRows, execute } from '../../src/db/sql';
import { sqlTransaction } from '../../src/db/sql-transaction';
import { holdCustomerUsage } from '../../src/usage';

// Meters and usage events through HTTP against the real database (docs/api.md "Usage-based billing",
// docs/decisions.md "Usage events"): the meters' endpoints and rules, batches refused whole naming the
// event and field, ids counted once, each aggregation and its daily summaries, another account refused.

const DAY_S = 86_400;
const nowS = () => Math.floor(Date.now() / 1000);
/** The UTC midnight `days` before today's. */
const midnight = (days: number) => Math.floor(nowS() / DAY_S) * DAY_S - days * DAY_S;

let stack: WorkerApp;
let api: ApiClient;
let other: ApiClient;
let meterCounter = 0;

beforeAll(async () => {
  stack = await startWorkerApp('usage-events');
  api = stack.api;
  other = apiClient(stack.app.baseUrl, (await createTestAccount(stack.app.prisma, { name: 'Other' })).apiKey);
}, 60_000);

afterAll(() => stack?.close());

async function createMeter(body: Record<string, unknown>, client: ApiClient = api) {
  meterCounter += 1;
  return expectStatus(
    await client.post('/meters', { name: `Meter ${meterCounter}`, event_name: `event_${meterCounter}`, ...body }),
    201,
    'POST /meters',
  );
}

function summary(meter: string, customer: string, start: number, end: number, extra = '') {
  return api.get(`/meters/${meter}/event-summaries?customer=${customer}&start_time=${start}&end_time=${end}${extra}`);
}

async function total(meter: string, customer: string, start = midnight(30), end = midnight(-1)) {
  const page = expectStatus(await summary(meter, customer, start, end), 200);
  expect(page.data).toHaveLength(1);
  return page.data[0].aggregated_value as number;
}

describe('meters', () => {
  it('creates, reads, lists with cursors, updates, deactivates and reactivates a meter', async () => {
    const first = await createMeter({ aggregation: 'sum', value_property: 'tokens' });
    expect(first).toMatchObject({
      object: 'billing.meter',
      aggregation: 'sum',
      value_property: 'tokens',
      status: 'active',
    });
    expect(first.id).toMatch(/^mtr_[A-Za-z0-9]{24}$/);
    expect(expectStatus(await api.get(`/meters/${first.id}`), 200)).toEqual(first);
    const second = await createMeter({ aggregation: 'count' });
    expect(second.value_property).toBeNull();

    const page = expectStatus(await api.get('/meters?take=1'), 200);
    expect(page.data.map((meter: any) => meter.id)).toEqual([second.id]);
    const next = expectStatus(await api.get(`/meters?take=1&starting_after=${second.id}`), 200);
    expect(next.data.map((meter: any) => meter.id)).toEqual([first.id]);

    const renamed = expectStatus(await api.post(`/meters/${first.id}`, { name: 'Tokens' }), 200);
    expect(renamed).toMatchObject({ name: 'Tokens', aggregation: 'sum' });
    const deactivated = expectStatus(await api.post(`/meters/${first.id}/deactivate`), 200);
    expect(deactivated.status).toBe('inactive');
    expect((await api.post(`/meters/${first.id}/deactivate`)).status).toBe(409);
    expect(expectStatus(await api.get('/meters?status=inactive&take=100'), 200).data.map((m: any) => m.id)).toEqual([
      first.id,
    ]);
    expect(expectStatus(await api.post(`/meters/${first.id}/reactivate`), 200).status).toBe('active');
  });

  it('refuses bad meters naming the field', async () => {
    const refusals: [Record<string, unknown>, string][] = [
      [{ name: 'x', event_name: 'e', aggregation: 'sum' }, 'value_property'],
      [{ name: 'x', event_name: 'e', aggregation: 'count', value_property: 'v' }, 'value_property'],
      [{ name: 'x', event_name: 'e', aggregation: 'median', value_property: 'v' }, 'aggregation'],
      [{ name: 'x', event_name: 'has space', aggregation: 'count' }, 'event_name'],
      [{ name: '', event_name: 'e', aggregation: 'count' }, 'name'],
    ];
    for (const [body, param] of refusals) {
      const response = await api.post('/meters', body);
      expect([response.status, response.body.error?.param]).toEqual([400, param]);
    }
    const taken = await createMeter({ aggregation: 'count' });
    const again = await api.post('/meters', { name: 'Again', event_name: taken.event_name, aggregation: 'count' });
    expect([again.status, again.body.error.code, again.body.error.param]).toEqual([
      409,
      'meter_event_name_taken',
      'event_name',
    ]);
  });

  it('keeps how a meter aggregates once events name it (409 meter_has_events)', async () => {
    const meter = await createMeter({ aggregation: 'sum', value_property: 'tokens' });
    // No events yet: the aggregation may still change.
    const changed = expectStatus(
      await api.post(`/meters/${meter.id}`, { aggregation: 'max', value_property: 'tokens' }),
      200,
    );
    expect(changed.aggregation).toBe('max');
    const customer = await createCustomer(api);
    expectStatus(
      await api.post('/usage-events', {
        events: [
          {
            id: 'e1',
            event_name: meter.event_name,
            customer: customer.id,
            timestamp: nowS() - 60,
            properties: { tokens: 3 },
          },
        ],
      }),
      202,
    );
    const refused = await api.post(`/meters/${meter.id}`, { aggregation: 'sum', value_property: 'tokens' });
    expect([refused.status, refused.body.error.code, refused.body.error.param]).toEqual([
      409,
      'meter_has_events',
      'aggregation',
    ]);
    // Its name still changes.
    expect(expectStatus(await api.post(`/meters/${meter.id}`, { name: 'Peak tokens' }), 200).name).toBe('Peak tokens');
    expect(expectStatus(await api.get(`/meters/${meter.id}`), 200).aggregation).toBe('max');
  });

  it("answers 404 to another account's key for everything of a meter", async () => {
    const meter = await createMeter({ aggregation: 'count' });
    const customer = await createCustomer(api);
    expect((await other.get(`/meters/${meter.id}`)).status).toBe(404);
    expect((await other.post(`/meters/${meter.id}`, { name: 'Mine' })).status).toBe(404);
    expect((await other.post(`/meters/${meter.id}/deactivate`)).status).toBe(404);
    expect(
      (await other.get(`/meters/${meter.id}/event-summaries?customer=${customer.id}&start_time=1&end_time=2`)).status,
    ).toBe(404);
    expect(expectStatus(await other.get('/meters?take=100'), 200).data).toEqual([]);
    // Their own meter with the same event name is theirs, and does not count our events.
    const theirs = await createMeter({ aggregation: 'count', event_name: meter.event_name }, other);
    expect(theirs.event_name).toBe(meter.event_name);
    const refused = await other.post('/usage-events', {
      events: [{ id: 'x', event_name: meter.event_name, customer: customer.id, timestamp: nowS() }],
    });
    expect([refused.status, refused.body.error.param]).toEqual([404, 'events.0.customer']);
    expect(expectStatus(await api.get(`/meters/${meter.id}`), 200).status).toBe('active');
  });
});

describe('usage events', () => {
  it('counts a repeated id once, within a batch and across batches', async () => {
    const meter = await createMeter({ aggregation: 'sum', value_property: 'tokens' });
    const customer = await createCustomer(api);
    const event = (id: string, tokens: number | string) => ({
      id,
      event_name: meter.event_name,
      customer: customer.id,
      timestamp: nowS() - 3600,
      properties: { tokens },
    });
    const first = expectStatus(
      await api.post('/usage-events', { events: [event('a', 10), event('b', '20'), event('a', 10)] }),
      202,
    );
    expect(first).toEqual({ object: 'usage_event_batch', received: 3, counted: 2, duplicates: 1 });
    // Sent again (a retry after a lost answer), with a new one: only the new one counts. The first event of an id wins.
    const second = expectStatus(await api.post('/usage-events', { events: [event('b', 999), event('c', 5)] }), 202);
    expect(second).toMatchObject({ counted: 1, duplicates: 1 });
    expect(await total(meter.id, customer.id)).toBe(35);
  });

  it('writes each event as sent: its time, its properties exactly ({} when absent), for its own customer', async () => {
    const meter = await createMeter({ aggregation: 'count' });
    const customer = await createCustomer(api);
    const at = nowS() - 120;
    const properties = { note: 'a "quoted" \\ back\u00e9 {x}', n: 12, ok: true, big: 1e21, neg: -0.5 };
    const events = [
      { id: 'bare', event_name: meter.event_name, customer: customer.id, timestamp: at },
      { id: 'full', event_name: meter.event_name, customer: customer.id, timestamp: at + 1, properties },
    ];
    expect(expectStatus(await api.post('/usage-events', { events }), 202)).toMatchObject({ counted: 2 });
    const rows = await stack.app.prisma.usageEvent.findMany({
      where: { customerId: customer.id },
      orderBy: { id: 'asc' },
    });
    expect(rows.map((row) => [row.id, row.eventName, row.timestamp.getTime(), row.properties])).toEqual([
      ['bare', meter.event_name, at * 1000, {}],
      ['full', meter.event_name, (at + 1) * 1000, properties],
    ]);
    expect(await total(meter.id, customer.id)).toBe(2);
    // Another account's key: the same batch names a customer it does not have.
    const theirs = await createMeter({ aggregation: 'count', event_name: meter.event_name }, other);
    const refused = await other.post('/usage-events', {
      events: [{ ...events[0], event_name: theirs.event_name }],
    });
    expect([refused.status, refused.body.error?.param]).toEqual([404, 'events.0.customer']);
  });

  it('takes text that would end a quoted SQL string as text: ids, names, properties and customers', async () => {
    // The batch's values are quoted into its statements' text (docs/performance.md, "A batch's p99").
    const meter = await createMeter({ aggregation: 'sum', value_property: 'tokens' });
    const customer = await createCustomer(api);
    const at = nowS() - 60;
    const tricky = ["');DROP_TABLE_usage_events;--", '$q$$qq$$$', 'back\\slash\\', 'ends_with$q'];
    const events = tricky.map((id, index) => ({
      id,
      event_name: meter.event_name,
      customer: customer.id,
      timestamp: at,
      properties: { tokens: index + 1, "it's $q$": `${tricky[(index + 1) % tricky.length]} '' $$ \\ $q` },
    }));
    expect(expectStatus(await api.post('/usage-events', { events }), 202)).toMatchObject({ counted: 4 });
    const rows = await stack.app.prisma.usageEvent.findMany({ where: { customerId: customer.id } });
    expect(rows.map((row) => [row.id, row.properties]).sort()).toEqual(
      events.map((event) => [event.id, event.properties]).sort(),
    );
    expect(await total(meter.id, customer.id)).toBe(10);
    for (const name of ["cus_x'); --", 'cus_$q$']) {
      const refused = await api.post('/usage-events', { events: [{ ...events[0], id: 'new', customer: name }] });
      expect([[400, 404].includes(refused.status), refused.body.error?.param]).toEqual([true, 'events.0.customer']);
    }
    const strangeName = await api.post('/usage-events', {
      events: [{ ...events[0], id: 'new', event_name: "no'meter$q$" }],
    });
    expect([[400, 404].includes(strangeName.status), strangeName.body.error?.param]).toEqual([
      true,
      'events.0.event_name',
    ]);
  });

  it("holds the meters a batch read until it commits: the meter's deactivation waits for it, then its events count", async () => {
    const meter = await createMeter({ aggregation: 'count' });
    const customer = await createCustomer(api);
    const at = nowS() - 120;
    const event = (id: string) => ({ id, event_name: meter.event_name, customer: customer.id, timestamp: at });
    expectStatus(await api.post('/usage-events', { events: [event('first')] }), 202);
    const blockedBy = async (pid: number) =>
      (
        await queryRows<{ pid: number }>(
          stack.app.prisma,
          {
            name: 'test_blocked_by_pid',
            text: 'SELECT pid FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))',
          },
          [pid],
        )
      ).map((row) => row.pid);
    // The event's hour held by another transaction: a batch of the same hour stops at adding to it, after it
    // read (and locked) its meter.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let holderPid = 0;
    const holding = sqlTransaction(stack.app.prisma, async (tx) => {
      holderPid = (
        await queryRows<{ pid: number }>(
          tx,
          {
            name: 'test_hold_hour',
            text: 'SELECT pg_backend_pid() AS pid FROM usage_hours WHERE customer_id = $1 FOR UPDATE',
          },
          [customer.id],
        )
      )[0]!.pid;
      await released;
    });
    while (holderPid === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    const batch = api.post('/usage-events', { events: [event('second')] });
    let batchPids: number[] = [];
    while (batchPids.length === 0) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      batchPids = await blockedBy(holderPid);
    }
    let deactivated = false;
    const deactivation = api.post(`/meters/${meter.id}/deactivate`).then((response) => {
      deactivated = true;
      return response;
    });
    while ((await blockedBy(batchPids[0]!)).length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(deactivated).toBe(false);
    release();
    await holding;
    expect(expectStatus(await batch, 202)).toMatchObject({ counted: 1 });
    expectStatus(await deactivation, 200);
    expect(await total(meter.id, customer.id)).toBe(2);
  });

  it('refuses a batch whole at its first bad event, naming the event and field', async () => {
    const meter = await createMeter({ aggregation: 'sum', value_property: 'tokens' });
    const inactive = await createMeter({ aggregation: 'count' });
    expectStatus(await api.post(`/meters/${inactive.id}/deactivate`), 200);
    const customer = await createCustomer(api);
    const theirCustomer = await createCustomer(other);
    const good = (id: string) => ({
      id,
      event_name: meter.event_name,
      customer: customer.id,
      timestamp: nowS() - 60,
      properties: { tokens: 1 },
    });
    const cases: [Record<string, unknown>, number, string, string?][] = [
      [{ timestamp: nowS() + 3600 }, 400, 'events.3.timestamp', 'usage_event_in_future'],
      [{ timestamp: nowS() - 40 * DAY_S }, 400, 'events.3.timestamp', 'usage_event_too_old'],
      [{ timestamp: 1.5 }, 400, 'events.3.timestamp'],
      [{ customer: theirCustomer.id }, 404, 'events.3.customer'],
      [{ customer: 'cus_unknown' }, 404, 'events.3.customer'],
      [{ event_name: 'nobody_meters_this' }, 400, 'events.3.event_name', 'meter_not_found'],
      [{ event_name: inactive.event_name }, 400, 'events.3.event_name', 'meter_not_found'],
      [{ properties: {} }, 400, 'events.3.properties.tokens', 'parameter_missing'],
      [{ properties: { tokens: -1 } }, 400, 'events.3.properties.tokens'],
      [{ properties: { tokens: 1.5 } }, 400, 'events.3.properties.tokens'],
      [{ properties: { tokens: 'ten' } }, 400, 'events.3.properties.tokens'],
      [{ properties: { tokens: 1, nested: { a: 1 } } }, 400, 'events.3.properties.nested'],
      [{ extra: true }, 400, 'events.3.extra'],
      [{ id: '' }, 400, 'events.3.id'],
    ];
    for (const [change, status, param, code] of cases) {
      const events = [good('g0'), good('g1'), good('g2'), { ...good('bad'), ...change }, good('g4')];
      const response = await api.post('/usage-events', { events });
      expect([JSON.stringify(change), response.status, response.body.error?.param]).toEqual([
        JSON.stringify(change),
        status,
        param,
      ]);
      if (code) expect(response.body.error.code).toBe(code);
    }
    const tooMany = Array.from({ length: 1001 }, (_, index) => good(`m${index}`));
    expect((await api.post('/usage-events', { events: tooMany })).body.error.param).toBe('events');
    expect((await api.post('/usage-events', { events: [] })).body.error.param).toBe('events');
    // Nothing of the refused batches was written.
    expect(await total(meter.id, customer.id)).toBe(0);
    expectStatus(await api.post('/usage-events', { events: [good('g0')] }), 202);
    expect(await total(meter.id, customer.id)).toBe(1);
  });

  it('aggregates sum, count, count_unique, max and last over a range and per day', async () => {
    const customer = await createCustomer(api);
    const otherCustomer = await createCustomer(api);
    const meters = {
      sum: await createMeter({ aggregation: 'sum', value_property: 'n' }),
      count: await createMeter({ aggregation: 'count' }),
      count_unique: await createMeter({ aggregation: 'count_unique', value_property: 'user' }),
      max: await createMeter({ aggregation: 'max', value_property: 'n' }),
      last: await createMeter({ aggregation: 'last', value_property: 'n' }),
    };
    const day2 = midnight(2);
    const day1 = midnight(1);
    const rows: [number, number, string][] = [
      [day2 + 100, 5, 'ann'],
      [day2 + 200, 7, 'bob'],
      [day1 + 50, 3, 'ann'],
      [day1 + 10, 9, 'cid'],
    ];
    for (const [name, meter] of Object.entries(meters)) {
      const events = rows.map(([timestamp, n, user], index) => ({
        id: `${name}-${index}`,
        event_name: meter.event_name,
        customer: customer.id,
        timestamp,
        properties: { n, user },
      }));
      // Another customer's usage is not this customer's.
      events.push({
        ...events[0]!,
        id: `${name}-other`,
        customer: otherCustomer.id,
        properties: { n: 1000, user: 'zed' },
      });
      expectStatus(await api.post('/usage-events', { events }), 202);
    }
    const expected = { sum: [12, 12], count: [2, 2], count_unique: [2, 2], max: [7, 9], last: [7, 3] };
    const whole = { sum: 24, count: 4, count_unique: 3, max: 9, last: 3 };
    for (const [name, meter] of Object.entries(meters)) {
      const days = expectStatus(
        await summary(meter.id, customer.id, day2, midnight(-1), '&value_grouping_window=day'),
        200,
      );
      expect([name, days.data.map((day: any) => day.aggregated_value)]).toEqual([
        name,
        [...expected[name as keyof typeof expected], 0],
      ]);
      expect(days.data[0]).toMatchObject({ start_time: day2, end_time: day1, meter: meter.id, customer: customer.id });
      expect([name, await total(meter.id, customer.id, day2, midnight(-1))]).toEqual([
        name,
        whole[name as keyof typeof whole],
      ]);
    }
    // [start, end): an event at end_time is outside.
    expect(await total(meters.count.id, customer.id, day2, day1 + 10)).toBe(2);
    const unaligned = await summary(meters.sum.id, customer.id, day2 + 1, day1, '&value_grouping_window=day');
    expect([unaligned.status, unaligned.body.error.param]).toEqual([400, 'start_time']);
    const backwards = await summary(meters.sum.id, customer.id, day1, day2);
    expect([backwards.status, backwards.body.error.param]).toEqual([400, 'end_time']);
  });

  it("refuses events before the customer's oldest open period and after its clock's time", async () => {
    const start = Date.UTC(2026, 2, 1) / 1000;
    const meter = await createMeter({ aggregation: 'count' });
    const price = await recurringPrice(api, { unitAmount: 1000 });
    const { clock, customer, method } = await customerOnClock(api, start);
    await subscribeOnClock(api, { customer, method }, [{ price, quantity: 1 }], start);
    await advanceClock(api, clock.id, start + 19 * DAY_S);
    const send = (id: string, timestamp: number) =>
      api.post('/usage-events', { events: [{ id, event_name: meter.event_name, customer: customer.id, timestamp }] });
    expectStatus(await send('inside', start + 10 * DAY_S), 202);
    expectStatus(await send('first second', start), 400);
    expectStatus(await send('first-second', start), 202);
    const before = await send('before', start - 1);
    expect([before.status, before.body.error.code, before.body.error.param]).toEqual([
      400,
      'usage_event_too_old',
      'events.0.timestamp',
    ]);
    // The clock's time is the customer's now: a day after it is in the future, though long past on the wall clock.
    const ahead = await send('ahead', start + 20 * DAY_S);
    expect([ahead.status, ahead.body.error.code]).toEqual([400, 'usage_event_in_future']);
    expect(await total(meter.id, customer.id, start, start + 31 * DAY_S)).toBe(2);
  });

  it('takes no event into a period whose invoice has read its usage: a batch waits for that invoice, then finds the period closed', async () => {
    const start = Date.UTC(2026, 4, 1) / 1000;
    const june = Date.UTC(2026, 5, 1) / 1000;
    const july = Date.UTC(2026, 6, 1) / 1000;
    const meter = await createMeter({ aggregation: 'count' });
    const price = await recurringPrice(api, { unitAmount: 1000 });
    const { clock, customer, method } = await customerOnClock(api, start);
    const subscription = await subscribeOnClock(api, { customer, method }, [{ price, quantity: 1 }], start);
    await advanceClock(api, clock.id, june + 4 * DAY_S);
    const send = (id: string) =>
      api.post('/usage-events', {
        events: [{ id, event_name: meter.event_name, customer: customer.id, timestamp: start + 9 * DAY_S }],
      });
    // June's period runs: May's usage may still come late (June's invoice will bill it).
    expectStatus(await send('may-late'), 202);

    // July's invoice, as its step makes it: the customer's usage held while it reads May's and June's totals
    // and writes its renewal row. A batch sent meanwhile waits, then finds May closed: refused, not lost.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let holderPid = 0;
    const invoicing = sqlTransaction(stack.app.prisma, async (tx) => {
      await holdCustomerUsage(tx, customer.id);
      holderPid = (
        await queryRows<{ pid: number }>(tx, { name: 'test_backend_pid', text: 'SELECT pg_backend_pid() AS pid' }, [])
      )[0]!.pid;
      await execute(
        tx,
        {
          name: 'test_renewal_row',
          text: `INSERT INTO subscription_renewals (subscription_id, period_start, account_id, period_end, status)
            SELECT id, $2, account_id, $3, 'invoiced' FROM subscriptions WHERE id = $1`,
        },
        [subscription.id, new Date(july * 1000), new Date(Date.UTC(2026, 7, 1))],
      );
      await released;
    });
    while (holderPid === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    const late = send('may-too-late');
    const waiting = async () =>
      (
        await queryRows(
          stack.app.prisma,
          {
            name: 'test_blocked_by',
            text: 'SELECT 1 FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))',
          },
          [holderPid],
        )
      ).length > 0;
    while (!(await waiting())) await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    await invoicing;
    const refused = await late;
    expect([refused.status, refused.body.error?.code, refused.body.error?.param]).toEqual([
      400,
      'usage_event_too_old',
      'events.0.timestamp',
    ]);
    expect(await total(meter.id, customer.id, start, june)).toBe(1);
  });
});
