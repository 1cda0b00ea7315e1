import { apiClient, createTestAccount, startWorkerApp, type ApiClient, type WorkerApp } from '../support/harness';
import { advanceClock, billedShape, customerOnClock, subscribeOnClock, subscriptionInvoices } from '../support/clocks';
import { expectStatus, recurringPrice } from '../support/subscriptions';
import { meteredPrice, priceOnMeter } from '../support/usage';

// Metered items changed during a period and usage sent after a subscription ended, through HTTP with a worker
// and test clocks (docs/decisions.md §43, "Changes of items" and "An ending bills the final usage at once").

process.env.USAGE_GRACE = '30m';

const at = (iso: string) => Date.parse(iso) / 1000;
const day = (iso: string) => at(`${iso}T00:00:00Z`);

let stack: WorkerApp;
let api: ApiClient;
let other: ApiClient;

beforeAll(async () => {
  stack = await startWorkerApp('usage-item-changes');
  api = stack.api;
  other = apiClient(stack.app.baseUrl, (await createTestAccount(stack.app.prisma, { name: 'Other' })).apiKey);
}, 60_000);

afterAll(() => stack?.close());

/** A customer on a clock from Jan 1 2026 subscribed to `items`, a sender of events that sums what it sent. */
async function subscribed(items: unknown[]) {
  const { clock, customer, method } = await customerOnClock(api, day('2026-01-01'));
  const subscription = await subscribeOnClock(api, { customer, method }, items as never, day('2026-01-01'));
  let sent = 0;
  const send = (eventName: string, timestamp: number, tokens: number) => {
    sent += 1;
    const event = { id: `${subscription.id}-${sent}`, event_name: eventName, customer: customer.id, timestamp };
    return api.post('/usage-events', { events: [{ ...event, properties: { tokens } }] });
  };
  const advance = (iso: string) => advanceClock(api, clock.id, at(iso));
  return { customer, subscription, send, advance };
}

const lineOf = (line: any) => [line.price, line.quantity, line.amount, line.period.start, line.period.end];

describe('a metered item changed during a period keeps the usage it counted', () => {
  it('a removed item: its usage up to the removal is billed once, on the next invoice, naming that part of the period', async () => {
    const licensed = await recurringPrice(api, { unitAmount: 1000 });
    const { eventName, price } = await meteredPrice(api, { unit_amount: 3 });
    const world = await subscribed([{ price: licensed, quantity: 1 }, { price }]);
    const metered = world.subscription.items.data[1];
    await world.advance('2026-01-10T00:00:00Z');
    // What the item counted before its removal, summed here apart from the service.
    const before = [120, 80];
    expectStatus(await world.send(eventName, day('2026-01-02'), before[0]!), 202);
    expectStatus(await world.send(eventName, day('2026-01-09'), before[1]!), 202);
    expectStatus(
      await api.patch(`/subscriptions/${world.subscription.id}`, { items: [{ id: metered.id, deleted: true }] }),
      200,
    );
    expect((await other.patch(`/subscriptions/${world.subscription.id}`, { items: [{ price }] })).status).toBe(404);
    // An event after the removal: no item bills the meter any more.
    await world.advance('2026-01-20T00:00:00Z');
    expectStatus(await world.send(eventName, day('2026-01-15'), 1000), 202);

    await world.advance('2026-01-31T23:00:00Z');
    const preview = expectStatus(await api.get(`/invoices/upcoming?subscription=${world.subscription.id}`), 200);
    await world.advance('2026-02-01T02:00:00Z');
    const [, february] = await subscriptionInvoices(api, world.subscription.id);
    const used = before[0]! + before[1]!;
    expect(february.lines.map(lineOf)).toEqual([
      [licensed, 1, 1000, day('2026-02-01'), day('2026-03-01')],
      [price, used, 3 * used, day('2026-01-01'), day('2026-01-10')],
    ]);
    expect(february.lines[1].description).toMatch(/ usage, 2026-01-01 to 2026-01-10$/);
    expect([february.total, february.status]).toEqual([1000 + 3 * used, 'paid']);
    expect(billedShape(february)).toEqual(billedShape(preview));

    // Billed once: the next invoice has no usage of the removed item.
    await world.advance('2026-03-01T02:00:00Z');
    const invoices = await subscriptionInvoices(api, world.subscription.id);
    const billedOfPrice = invoices
      .flatMap((invoice) => invoice.lines)
      .filter((line: any) => line.price === price)
      .reduce((sum: number, line: any) => sum + line.quantity, 0);
    expect([invoices.length, billedOfPrice]).toEqual([3, used]);
  }, 120_000);

  it('an item moved to another price of its meter: the usage before the move at the old price, after it at the new', async () => {
    const { eventName, meter, price: oldPrice, productId } = await meteredPrice(api, { unit_amount: 3 });
    const newPrice = await priceOnMeter(api, productId, meter.id, { unit_amount: 7 });
    const world = await subscribed([{ price: oldPrice }]);
    const item = world.subscription.items.data[0];
    await world.advance('2026-01-10T00:00:00Z');
    expectStatus(await world.send(eventName, day('2026-01-05'), 100), 202);
    expectStatus(
      await api.patch(`/subscriptions/${world.subscription.id}`, { items: [{ id: item.id, price: newPrice }] }),
      200,
    );
    await world.advance('2026-01-20T00:00:00Z');
    expectStatus(await world.send(eventName, day('2026-01-15'), 50), 202);
    await world.advance('2026-02-01T02:00:00Z');
    const [, february] = await subscriptionInvoices(api, world.subscription.id);
    expect(february.lines.map(lineOf)).toEqual([
      [oldPrice, 100, 300, day('2026-01-01'), day('2026-01-10')],
      [newPrice, 50, 350, day('2026-01-10'), day('2026-02-01')],
    ]);

    // A late event of the moved part comes on March's invoice, on a line of the part the new price billed.
    expectStatus(await world.send(eventName, day('2026-01-25'), 10), 202);
    await world.advance('2026-03-01T02:00:00Z');
    const march = (await subscriptionInvoices(api, world.subscription.id))[2];
    expect(march.lines.map(lineOf)).toEqual([
      [newPrice, 10, 70, day('2026-01-10'), day('2026-02-01')],
      [newPrice, 0, 0, day('2026-02-01'), day('2026-03-01')],
    ]);
  }, 120_000);

  it('a canceled subscription bills the usage of an item removed before the cancellation on its final invoice', async () => {
    const licensed = await recurringPrice(api, { unitAmount: 1000 });
    const { eventName, price } = await meteredPrice(api, { unit_amount: 3 });
    const world = await subscribed([{ price: licensed, quantity: 1 }, { price }]);
    await world.advance('2026-01-10T00:00:00Z');
    expectStatus(await world.send(eventName, day('2026-01-05'), 40), 202);
    const metered = world.subscription.items.data[1];
    expectStatus(
      await api.patch(`/subscriptions/${world.subscription.id}`, { items: [{ id: metered.id, deleted: true }] }),
      200,
    );
    expectStatus(await api.delete(`/subscriptions/${world.subscription.id}`), 200);
    const invoices = await subscriptionInvoices(api, world.subscription.id);
    expect(invoices.map((invoice) => invoice.lines.map(lineOf))).toEqual([
      [[licensed, 1, 1000, day('2026-01-01'), day('2026-02-01')]],
      [[price, 40, 120, day('2026-01-01'), day('2026-01-10')]],
    ]);
  }, 120_000);
});

describe('usage sent after its subscription ended', () => {
  /**
   * Senders post one-event batches of the open period one after another until `ending` has answered (and a few
   * more after it), so some land before the ending's invoice, some while it is made and some after. Answers how
   * many were accepted, and every outcome.
   */
  async function raceWithEnding(
    world: Awaited<ReturnType<typeof subscribed>>,
    eventName: string,
    ending: () => Promise<void>,
  ) {
    let ended = false;
    let sent = 0;
    const outcomes: string[] = [];
    const sender = async () => {
      for (let after = 0; after < 3; after += ended ? 1 : 0) {
        sent += 1;
        const event = {
          id: `race-${world.subscription.id}-${sent}`,
          event_name: eventName,
          customer: world.customer.id,
        };
        const response = await api.post('/usage-events', {
          events: [{ ...event, timestamp: day('2026-01-10'), properties: { tokens: 1 } }],
        });
        outcomes.push(response.status === 202 ? 'accepted' : `${response.status} ${response.body.error?.code}`);
      }
    };
    const senders = Array.from({ length: 4 }, sender);
    while (!outcomes.includes('accepted')) await new Promise((resolve) => setTimeout(resolve, 10));
    await ending();
    ended = true;
    await Promise.all(senders);
    return { accepted: outcomes.filter((outcome) => outcome === 'accepted').length, outcomes: new Set(outcomes) };
  }

  it('a burst of batches racing the cancellation: every accepted event is on the final invoice once, the others refused', async () => {
    const { eventName, price } = await meteredPrice(api, { unit_amount: 3 });
    const world = await subscribed([{ price }]);
    await world.advance('2026-01-20T00:00:00Z');
    const { accepted, outcomes } = await raceWithEnding(world, eventName, async () => {
      expectStatus(await api.delete(`/subscriptions/${world.subscription.id}`), 200);
    });
    expect(outcomes).toEqual(new Set(['accepted', '400 usage_period_closed']));
    const [, final] = await subscriptionInvoices(api, world.subscription.id);
    expect(final.lines.map(lineOf)).toEqual([[price, accepted, 3 * accepted, day('2026-01-01'), day('2026-01-20')]]);
    expect((await other.get(`/invoices/${final.id}`)).status).toBe(404);
  }, 120_000);

  it('a burst of batches racing an end at the period end on a clock: every accepted event is on the final invoice once', async () => {
    const { eventName, price } = await meteredPrice(api, { unit_amount: 3 });
    const world = await subscribed([{ price }]);
    await world.advance('2026-01-20T00:00:00Z');
    expectStatus(await api.patch(`/subscriptions/${world.subscription.id}`, { cancel_at_period_end: true }), 200);
    const { accepted, outcomes } = await raceWithEnding(world, eventName, () =>
      world.advance('2026-02-01T02:00:00Z').then(() => undefined),
    );
    expect(outcomes).toEqual(new Set(['accepted', '400 usage_period_closed']));
    const [, final] = await subscriptionInvoices(api, world.subscription.id);
    expect(final.lines.map(lineOf)).toEqual([[price, accepted, 3 * accepted, day('2026-01-01'), day('2026-02-01')]]);
  }, 120_000);

  it('is refused, naming the timestamp, when the final invoice billed its period; later usage is accepted', async () => {
    const { eventName, price } = await meteredPrice(api, { unit_amount: 3 });
    const world = await subscribed([{ price }]);
    await world.advance('2026-01-20T00:00:00Z');
    expectStatus(await world.send(eventName, day('2026-01-05'), 100), 202);
    expectStatus(await api.delete(`/subscriptions/${world.subscription.id}`), 200);
    const [, final] = await subscriptionInvoices(api, world.subscription.id);
    expect(final.lines.map(lineOf)).toEqual([[price, 100, 300, day('2026-01-01'), day('2026-01-20')]]);

    // An event of the closed period after the final invoice: no invoice would bill it.
    const late = await world.send(eventName, day('2026-01-19'), 5);
    expect([late.status, late.body.error.code, late.body.error.param]).toEqual([
      400,
      'usage_period_closed',
      'events.0.timestamp',
    ]);
    // In a batch, the first such event is named and nothing is written.
    const batch = await api.post('/usage-events', {
      events: [
        { id: 'closed-ok', event_name: eventName, customer: world.customer.id, timestamp: day('2026-01-20') + 60 },
        { id: 'closed-late', event_name: eventName, customer: world.customer.id, timestamp: day('2026-01-10') },
      ].map((event) => ({ ...event, properties: { tokens: 1 } })),
    });
    expect([batch.status, batch.body.error.param]).toEqual([400, 'events.1.timestamp']);
    // After the ending, the customer's events are accepted as any unsubscribed customer's.
    expectStatus(await world.send(eventName, day('2026-01-20') + 60, 5), 202);
    // Another meter of the customer, which the ended subscription did not bill, is not closed.
    const { eventName: otherMeter } = await meteredPrice(api, { unit_amount: 3 });
    expectStatus(await world.send(otherMeter, day('2026-01-10'), 5), 202);
    // Another account's customer is unknown to this account, as before.
    const foreign = await other.post('/usage-events', {
      events: [
        { id: 'x', event_name: eventName, customer: world.customer.id, timestamp: day('2026-01-19'), properties: {} },
      ],
    });
    expect(foreign.status).toBeGreaterThanOrEqual(400);
    expect(foreign.status).toBeLessThan(500);
  }, 120_000);
});
