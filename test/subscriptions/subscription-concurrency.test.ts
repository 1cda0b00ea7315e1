import fc from 'fast-check';
import { MAX_CHARGE_AMOUNT } from '../../src/lib/money';
import { CARDS, customerWithCard } from '../support/payments';
import { burst, operation, type BurstTarget, type Operation } from '../support/subscription-bursts';
import { terminateWhenIdle } from '../support/temporal';
import {
  advanceTo,
  createSubscription,
  expectStatus,
  recordHistories,
  recurringPrice,
  settled,
  startSubscriptionWorld,
  unix,
  workflowHandle,
  type SubscriptionWorld,
} from '../support/subscriptions';

/**
 * Several requests sent at once to one subscription (a dashboard, a portal and the API will do it):
 * each change is decided on the state the previous one wrote, one after another (decisions.md §7,
 * "Concurrent changes"); test/support/subscription-bursts.ts compares the readers afterwards. The
 * server engine runs the same bursts (test/operations/server-engine.test.ts).
 */

let world: SubscriptionWorld;
let target: BurstTarget;
let customer: string;
let monthly: string;

beforeAll(async () => {
  world = await startSubscriptionWorld();
  customer = (await customerWithCard(world.api, CARDS.succeeds)).customer.id;
  monthly = await recurringPrice(world.api, { unitAmount: 1500 });
  target = {
    api: world.api,
    prisma: world.app.prisma,
    temporal: world.env.client,
    accountId: world.accountId,
    extraPrices: [
      await recurringPrice(world.api, { unitAmount: 700 }),
      await recurringPrice(world.api, { unitAmount: 300 }),
    ],
    settle: (id) => settled(world, id),
  };
});

afterAll(() => world.close());

async function subscribe(price = monthly) {
  return createSubscription(world.api, {
    customer,
    items: [{ price, quantity: 1 }],
    trial_days: 0,
    start_date: unix(await world.env.currentTimeMs()),
  });
}

async function burstOnNew(operations: Operation[], record?: string): Promise<void> {
  const created = await subscribe();
  await burst(target, created, operations);
  if (record) await recordHistories(world, created.id, record);
}

describe('concurrent changes of one subscription', () => {
  it('mixed bursts of pause, resume, cancel, cancel at period end and its withdrawal, quantity and item changes: row, GET, last event and workflow agree', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 2, maxLength: 8 }), (operations) => burstOnNew(operations)),
      { numRuns: 12 },
    );
  });

  it('cancel at period end and its withdrawal at once: GET, the workflow and the renewal agree on whether it ends', async () => {
    for (let round = 0; round < 4; round++) {
      await burstOnNew([
        { kind: 'cancel_at_period_end', spelling: 'patch' },
        { kind: 'withdraw_period_end_cancel' },
        { kind: 'cancel_at_period_end', spelling: 'delete' },
      ]);
    }
  });

  it('three quantity changes at once: the last one written is the one GET shows and the workflow bills', async () => {
    await burstOnNew(
      [
        { kind: 'quantity', quantity: 2 },
        { kind: 'quantity', quantity: 5 },
        { kind: 'quantity', quantity: 3 },
      ],
      'concurrent-quantity-changes',
    );
  });

  it('resume, cancel and pause at once never leave a canceled workflow behind an active row', async () => {
    for (let round = 0; round < 3; round++) {
      await burstOnNew([
        { kind: 'pause' },
        { kind: 'resume' },
        { kind: 'cancel_now' },
        { kind: 'pause' },
        { kind: 'cancel_now' },
      ]);
    }
  });

  it('two item additions at once cannot pass the charge ceiling together: the later one is refused with 400 naming the field', async () => {
    const big = [
      await recurringPrice(world.api, { unitAmount: 45_000_000 }),
      await recurringPrice(world.api, { unitAmount: 45_000_001 }),
    ];
    const base = await recurringPrice(world.api, { unitAmount: 10_000_000 });
    for (let round = 0; round < 3; round++) {
      const created = await subscribe(base);
      const answers = await Promise.all(
        big.map((price) => world.api.patch(`/subscriptions/${created.id}`, { items: [{ price, quantity: 1 }] })),
      );
      // Each alone fits (55,000,000 cents); both would pass MAX_CHARGE_AMOUNT.
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
      const refused = answers.find((answer) => answer.status === 400)!;
      expect(refused.body.error).toMatchObject({ code: 'amount_too_large', param: 'items' });
      await settled(world, created.id);
      const get = expectStatus(await world.api.get(`/subscriptions/${created.id}`), 200, 'GET');
      expect(get.items.data).toHaveLength(2);
      const total = get.items.data.reduce(
        (sum: number, item: { price: { unit_amount: number }; quantity: number }) =>
          sum + item.price.unit_amount * item.quantity,
        0,
      );
      expect(total).toBeLessThanOrEqual(MAX_CHARGE_AMOUNT);
    }
  });

  it('two prorated additions at once: their items fit, the next invoice with both prorations would not, so the later one is refused and the renewal bills', async () => {
    // 10,000,000 + 2 x 30,000,000 = 70,000,000 a period fits; with a whole period's proration of each
    // addition waiting for the renewal, one addition comes to about 70,000,000 and both to 130,000,000.
    const added = [
      await recurringPrice(world.api, { unitAmount: 30_000_000 }),
      await recurringPrice(world.api, { unitAmount: 30_000_000 }),
    ];
    const base = await recurringPrice(world.api, { unitAmount: 10_000_000 });
    for (let round = 0; round < 3; round++) {
      const created = await subscribe(base);
      const answers = await Promise.all(
        added.map((price) =>
          world.api.patch(`/subscriptions/${created.id}`, {
            items: [{ price, quantity: 1 }],
            proration_behavior: 'create_prorations',
          }),
        ),
      );
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
      const refused = answers.find((answer) => answer.status === 400)!;
      expect(refused.body.error).toMatchObject({ code: 'amount_too_large', param: 'items' });
      await settled(world, created.id);
      const upcoming = expectStatus(
        await world.api.get(`/invoices/upcoming?subscription=${created.id}`),
        200,
        'GET /invoices/upcoming',
      );
      expect(upcoming.total).toBeLessThanOrEqual(MAX_CHARGE_AMOUNT);
      // The renewal bills what the preview showed.
      const state = (await advanceTo(world, created.id, created.current_period_end * 1000 + 3_600_000))!;
      expect(state.lastError).toBeNull();
      expect(state.invoicesIssued).toBe(2);
      const renewal = await world.app.prisma.invoice.findUniqueOrThrow({ where: { id: state.latestInvoiceId! } });
      expect(Number(renewal.total)).toBe(upcoming.total);
      if (round === 0) await recordHistories(world, created.id, 'concurrent-prorated-additions');
      await terminateWhenIdle(workflowHandle(world, created.id), 'round done');
    }
  });
});
