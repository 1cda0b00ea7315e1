import fc from 'fast-check';
import { apiStatus, webhookStatus } from '../src/subscriptions/subscription-machine';
import { MAX_CHARGE_AMOUNT } from '../src/lib/money';
import type { ApiResponse } from './support/harness';
import { CARDS, customerWithCard } from './support/payments';
import {
  createSubscription,
  expectStatus,
  recordHistories,
  recurringPrice,
  settled,
  startSubscriptionWorld,
  subscriptionEvents,
  subscriptionState,
  unix,
  workflowHandle,
  type SubscriptionWorld,
} from './support/subscriptions';

/**
 * Several requests sent at once to one subscription (a dashboard, a portal and the API will do it):
 * each change is decided on the state the previous one wrote, one after another (decisions.md §7,
 * "Concurrent changes"), so the row, GET, the last event and the workflow's `state` query agree
 * afterwards, each answer is the state its own change produced, and each change has one event.
 */

let world: SubscriptionWorld;
let customer: string;
let monthly: string;
let extraPrices: string[];

beforeAll(async () => {
  world = await startSubscriptionWorld();
  customer = (await customerWithCard(world.api, CARDS.succeeds)).customer.id;
  monthly = await recurringPrice(world.api, { unitAmount: 1500 });
  extraPrices = [await recurringPrice(world.api, { unitAmount: 700 }), await recurringPrice(world.api, { unitAmount: 300 })];
});

afterAll(() => world.close());

type Operation =
  | { kind: 'pause' }
  | { kind: 'resume' }
  | { kind: 'cancel_now' }
  | { kind: 'cancel_at_period_end'; spelling: 'delete' | 'patch' }
  | { kind: 'withdraw_period_end_cancel' }
  | { kind: 'quantity'; quantity: number }
  | { kind: 'add_item'; price: 0 | 1 };

const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.constant({ kind: 'pause' as const }),
  fc.constant({ kind: 'resume' as const }),
  fc.constant({ kind: 'cancel_now' as const }),
  fc.constantFrom('delete' as const, 'patch' as const).map((spelling) => ({ kind: 'cancel_at_period_end' as const, spelling })),
  fc.constant({ kind: 'withdraw_period_end_cancel' as const }),
  fc.integer({ min: 1, max: 9 }).map((quantity) => ({ kind: 'quantity' as const, quantity })),
  fc.constantFrom(0 as const, 1 as const).map((price) => ({ kind: 'add_item' as const, price })),
);

function send(id: string, itemId: string, op: Operation): Promise<ApiResponse> {
  const { api } = world;
  switch (op.kind) {
    case 'pause':
      return api.post(`/subscriptions/${id}/pause`);
    case 'resume':
      return api.post(`/subscriptions/${id}/resume`);
    case 'cancel_now':
      return api.delete(`/subscriptions/${id}`);
    case 'cancel_at_period_end':
      return op.spelling === 'delete' ? api.delete(`/subscriptions/${id}?at_period_end=true`) : api.patch(`/subscriptions/${id}`, { cancel_at_period_end: true });
    case 'withdraw_period_end_cancel':
      return api.patch(`/subscriptions/${id}`, { cancel_at_period_end: false });
    case 'quantity':
      return api.patch(`/subscriptions/${id}`, { items: [{ id: itemId, quantity: op.quantity }] });
    case 'add_item':
      return api.patch(`/subscriptions/${id}`, { items: [{ price: extraPrices[op.price], quantity: 1 }] });
  }
}

/** What a reader compares: the fields any of the operations can move. */
function shape(object: { status: string; cancel_at_period_end: boolean; cancel_at: number | null; items: { data: { price: { id: string }; quantity: number }[] } }) {
  return {
    status: object.status,
    cancel_at_period_end: object.cancel_at_period_end,
    cancel_at: object.cancel_at,
    items: object.items.data.map((item) => `${item.price.id} x${item.quantity}`).sort(),
  };
}

async function burst(operations: Operation[], record?: string): Promise<void> {
  const created = await createSubscription(world.api, { customer, items: [{ price: monthly, quantity: 1 }], trial_days: 0, start_date: unix(await world.env.currentTimeMs()) });
  const id: string = created.id;
  const itemId: string = created.items.data[0].id;
  const eventsBefore = (await subscriptionEvents(world, id)).filter((event) => event.type.startsWith('subscription.')).length;

  const answers = await Promise.all(operations.map((op) => send(id, itemId, op)));
  for (const answer of answers) {
    // A refusal is a 4xx with a reason, never a 5xx; the state decides which ones pass.
    expect(answer.status === 200 || answer.status === 409 || answer.status === 400).toBe(true);
  }
  const applied = answers.filter((answer) => answer.status === 200);

  const state = await settled(world, id);
  const get = expectStatus(await world.api.get(`/subscriptions/${id}`), 200, 'GET');
  const row = await world.app.prisma.subscription.findUniqueOrThrow({ where: { id } });
  const events = (await subscriptionEvents(world, id)).filter((event) => event.type.startsWith('subscription.'));

  // One event per change the API answered 200 (and none for a refused one).
  expect(events.length - eventsBefore).toBe(applied.length);
  // Each 200 answered its own change: no two answers carry the same version of the object.
  const versions = applied.map((answer) => answer.body.updated_ms as number);
  expect(new Set(versions).size).toBe(versions.length);
  // The last answer (newest version) is what GET shows.
  if (applied.length > 0) {
    const newest = applied.reduce((a, b) => ((a.body.updated_ms as number) > (b.body.updated_ms as number) ? a : b));
    expect(shape(newest.body)).toEqual(shape(get));
  }

  // The row, GET and the last event agree.
  expect(get.status).toBe(row.status);
  const last = events.at(-1)!.data as Parameters<typeof shape>[0];
  expect(shape(last)).toEqual({ ...shape(get), status: webhookStatus(get.status) });

  if (get.status === 'canceled') {
    // Ended: the workflow completed, with exactly one subscription.canceled.
    expect(state).toBeNull();
    expect(events.filter((event) => event.type === 'subscription.canceled')).toHaveLength(1);
    expect((await workflowHandle(world, id).describe()).status.name).toBe('COMPLETED');
  } else {
    // Running: the workflow's own state says the same.
    const view = state ?? (await subscriptionState(world, id));
    expect(apiStatus(view)).toBe(get.status);
    expect(view.version).toBe(row.workflowVersion);
    expect(view.cancelAtPeriodEnd).toBe(get.cancel_at_period_end);
    expect(view.items.map((item) => `${item.priceId} x${item.quantity}`).sort()).toEqual(shape(get).items);
  }
  if (record) await recordHistories(world, id, record);
}

describe('concurrent changes of one subscription', () => {
  it('mixed bursts of pause, resume, cancel, cancel at period end and its withdrawal, quantity and item changes: row, GET, last event and workflow agree', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 2, maxLength: 8 }), (operations) => burst(operations)),
      { numRuns: 12 },
    );
  });

  it('cancel at period end and its withdrawal at once: GET, the workflow and the renewal agree on whether it ends', async () => {
    for (let round = 0; round < 4; round++) {
      await burst([{ kind: 'cancel_at_period_end', spelling: 'patch' }, { kind: 'withdraw_period_end_cancel' }, { kind: 'cancel_at_period_end', spelling: 'delete' }]);
    }
  });

  it('three quantity changes at once: the last one written is the one GET shows and the workflow bills', async () => {
    await burst([{ kind: 'quantity', quantity: 2 }, { kind: 'quantity', quantity: 5 }, { kind: 'quantity', quantity: 3 }], 'concurrent-quantity-changes');
  });

  it('resume, cancel and pause at once never leave a canceled workflow behind an active row', async () => {
    for (let round = 0; round < 3; round++) {
      await burst([{ kind: 'pause' }, { kind: 'resume' }, { kind: 'cancel_now' }, { kind: 'pause' }, { kind: 'cancel_now' }]);
    }
  });

  it('two item additions at once cannot pass the charge ceiling together: the later one is refused with 400 naming the field', async () => {
    const big = [await recurringPrice(world.api, { unitAmount: 45_000_000 }), await recurringPrice(world.api, { unitAmount: 45_000_001 })];
    const base = await recurringPrice(world.api, { unitAmount: 10_000_000 });
    for (let round = 0; round < 3; round++) {
      const created = await createSubscription(world.api, { customer, items: [{ price: base, quantity: 1 }], trial_days: 0, start_date: unix(await world.env.currentTimeMs()) });
      const answers = await Promise.all(big.map((price) => world.api.patch(`/subscriptions/${created.id}`, { items: [{ price, quantity: 1 }] })));
      // Each alone fits (55,000,000 cents); both would pass MAX_CHARGE_AMOUNT.
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
      const refused = answers.find((answer) => answer.status === 400)!;
      expect(refused.body.error).toMatchObject({ code: 'amount_too_large', param: 'items' });
      await settled(world, created.id);
      const get = expectStatus(await world.api.get(`/subscriptions/${created.id}`), 200, 'GET');
      expect(get.items.data).toHaveLength(2);
      const total = get.items.data.reduce((sum: number, item: { price: { unit_amount: number }; quantity: number }) => sum + item.price.unit_amount * item.quantity, 0);
      expect(total).toBeLessThanOrEqual(MAX_CHARGE_AMOUNT);
    }
  });
});
