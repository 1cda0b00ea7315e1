import { BILLING_ACCOUNT_ID, BILLING_CUSTOMER_ID, BILLING_STATUS } from '../../src/temporal/search-attributes';
import { newId } from '../../src/lib/ids';
import { rejectionOf } from '../../src/subscriptions/subscription-rejection';
import {
  createdUpdate,
  SUBSCRIPTION_WORKFLOW_TYPE,
  subscriptionWorkflowId,
} from '../../workflows/subscription-messages';
import { MAX_CHARGE_AMOUNT } from '../../src/lib/money';
import { subscriptionEventData } from '../../src/subscriptions/subscription.records';
import { insertSubscription, insertSubscriptionInTx } from '../../src/subscriptions/subscription-projection.service';
import { initialState } from '../../src/subscriptions/subscription-machine';
import { subscriptionWorkflowStart } from '../../src/subscriptions/subscription-workflow.client';
import { poolOf } from '../../src/db/prisma';
import { WithStartWorkflowOperation, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { apiClient, createTestAccount, type ApiClient } from '../support/harness';
import {
  addPaymentMethod,
  cardBody,
  CARDS,
  createCustomer,
  createTaxRate,
  customerWithCard,
} from '../support/payments';
import {
  createSubscription,
  DAY_MS,
  expectStatus,
  invoicesOf,
  recurringPrice,
  settled,
  startSubscriptionWorld,
  subscriptionEvents,
  unix,
  workflowHandle,
  type SubscriptionWorld,
} from '../support/subscriptions';

let world: SubscriptionWorld;
let api: ApiClient;
let other: ApiClient;
let customer: string;
let monthly: string;
let yearly: string;
let quarterly: string;
let oneTime: string;
let otherCustomer: string;
let otherPrice: string;

beforeAll(async () => {
  world = await startSubscriptionWorld();
  api = world.api;
  other = apiClient(world.app.baseUrl, (await createTestAccount(world.app.prisma, { name: 'Other' })).apiKey);
  customer = (await customerWithCard(api, CARDS.succeeds)).customer.id;
  monthly = await recurringPrice(api, { unitAmount: 1500 });
  yearly = await recurringPrice(api, { interval: 'year' });
  quarterly = await recurringPrice(api, { intervalCount: 3 });
  oneTime = expectStatus(
    await api.post('/products', { name: `One-off ${Date.now()}`, currency: 'USD', unit_amount: 500, type: 'one_time' }),
    201,
  ).default_price;
  otherCustomer = (await createCustomer(other)).id;
  otherPrice = await recurringPrice(other);
});

afterAll(() => world.close());

const now = () => world.env.currentTimeMs();

async function validBody(extra: Record<string, unknown> = {}) {
  return { customer, items: [{ price: monthly, quantity: 1 }], trial_days: 0, start_date: unix(await now()), ...extra };
}

async function subscriptionCount() {
  return world.app.prisma.subscription.count({ where: { accountId: world.accountId } });
}

describe('POST /subscriptions', () => {
  it('creates an active subscription, bills its first period at once and answers the spec object', async () => {
    const subscription = await createSubscription(api, await validBody({ items: [{ price: monthly, quantity: 2 }] }));
    expect(subscription).toMatchObject({
      object: 'subscription',
      status: 'active',
      customer,
      currency: 'USD',
      collection_method: 'charge_automatically',
      cancel_at: null,
      cancel_at_period_end: false,
      canceled_at: null,
      ended_at: null,
      trial_start: null,
      trial_end: null,
      items: {
        total_count: 1,
        data: [
          {
            object: 'subscription_item',
            quantity: 2,
            price: { id: monthly, recurring: { interval: 'month', interval_count: 1 } },
          },
        ],
      },
    });
    expect(subscription.id).toMatch(/^sub_[a-zA-Z0-9]+$/);
    expect(subscription.items.data[0].id).toMatch(/^si_[a-zA-Z0-9]+$/);
    // A start_date already past starts the subscription when the workflow runs: nothing is billed retroactively.
    expect(subscription.billing_cycle_anchor - subscription.start_date).toBeGreaterThanOrEqual(0);
    expect(subscription.billing_cycle_anchor - subscription.start_date).toBeLessThan(5);
    expect(subscription.current_period_start).toBe(subscription.billing_cycle_anchor);
    const [invoice] = await invoicesOf(world, subscription.id);
    expect(subscription.latest_invoice).toBe(invoice!.id);
    expect(invoice).toMatchObject({ status: 'paid', total: 3000n });
    expect(expectStatus(await api.get(`/subscriptions/${subscription.id}`), 200)).toEqual(subscription);

    const [created] = await subscriptionEvents(world, subscription.id);
    expect(created!.type).toBe('subscription.created');
    // Billed at once: subscription.created names the invoice it was billed with (the contract's latest_invoice).
    expect(created!.data).toMatchObject({
      id: subscription.id,
      status: 'active',
      latest_invoice: invoice!.id,
      items: { object: 'list', total_count: 1 },
    });
    expect(created!.data).not.toHaveProperty('reason');
    expect(created!.data).not.toHaveProperty('initiated_by');
  });

  it('puts account, customer and status in search attributes and memo, for operators', async () => {
    const subscription = await createSubscription(
      api,
      await validBody({ start_date: unix((await now()) + 30 * DAY_MS) }),
    );
    expect(subscription.status).toBe('scheduled');
    const description = await workflowHandle(world, subscription.id).describe();
    expect(description.typedSearchAttributes.get(BILLING_ACCOUNT_ID)).toBe(world.accountId);
    expect(description.typedSearchAttributes.get(BILLING_CUSTOMER_ID)).toBe(customer);
    expect(description.typedSearchAttributes.get(BILLING_STATUS)).toBe('scheduled');
    expect(description.memo).toEqual({ accountId: world.accountId, customerId: customer });
    // Webhook payloads know no `scheduled`: it is sent as active.
    const [created] = await subscriptionEvents(world, subscription.id);
    expect((created!.data as { status: string }).status).toBe('active');
  });

  it('send_invoice: the first invoice is finalized for its email, not charged', async () => {
    const subscription = await createSubscription(api, await validBody({ collection_method: 'send_invoice' }));
    const [invoice] = await invoicesOf(world, subscription.id);
    expect(subscription).toMatchObject({ status: 'active', latest_invoice: invoice!.id });
    // The workflow records the period as billed (subscription.updated) once it runs.
    await settled(world, subscription.id);
    expect(invoice).toMatchObject({ status: 'open', collectionMethod: 'send_invoice', attemptCount: 0 });
    expect(invoice!.dueDate!.getTime()).toBe(invoice!.periodStart.getTime() + 30 * DAY_MS);
    // invoice.sent follows once its email is sent (test/emails/emails.test.ts): no relay runs here.
    const types = (await subscriptionEvents(world, subscription.id)).map((event) => event.type);
    expect(types).toEqual(['subscription.created', 'invoice.created', 'invoice.finalized', 'subscription.updated']);
  });

  it('answers the object it wrote, as GET shows it, and subscription.created carries that object byte for byte', async () => {
    // Pins the creation's answer and event payload (webhooks send it) across rewrites of the creation's SQL.
    const inclusive = await createTaxRate(api, 8.25, true);
    const exclusive = await createTaxRate(api, 5, false);
    const second = await recurringPrice(api, { unitAmount: 700 });
    const card = await addPaymentMethod(
      api,
      customer,
      cardBody(CARDS.succeeds, { billing_details: { name: 'Pinned card' } }),
    );
    const start = await now();
    const eventText = async (id: string) => {
      const rows = await world.app.prisma.$queryRaw<{ text: string }[]>`
        SELECT data::text AS text FROM events WHERE type = 'subscription.created' AND data->>'id' = ${id}`;
      expect(rows).toHaveLength(1);
      return rows[0]!.text;
    };
    const asJsonb = async (value: unknown) =>
      (await world.app.prisma.$queryRaw<{ text: string }[]>`SELECT ${JSON.stringify(value)}::jsonb::text AS text`)[0]!
        .text;
    const kept = [
      {
        items: [
          { price: monthly, quantity: 2, tax: [inclusive.id, exclusive.id] },
          { price: second, quantity: 1 },
        ],
        start_date: unix(start + 30 * DAY_MS),
        end_date: unix(start + 400 * DAY_MS),
        default_payment_method: card.id,
        collection_method: 'send_invoice',
      },
      { trial_days: 7 },
      {
        start_date: unix(start + 10 * DAY_MS),
        start_billing_date: unix(start + 20 * DAY_MS),
        items: [{ price: second, quantity: 3, tax: [] }],
      },
    ];
    for (const extra of kept) {
      const response = await api.post('/subscriptions', await validBody(extra));
      const answer = expectStatus(response, 201);
      const shown = expectStatus(await api.get(`/subscriptions/${answer.id}`), 200);
      // Same values and the same key order as the read path.
      expect(JSON.stringify(answer)).toBe(JSON.stringify(shown));
      expect(await eventText(answer.id)).toBe(await asJsonb(subscriptionEventData(answer)));
    }
    // Billed at creation: the answer shows the period being billed; the event the subscription as first written, with its first invoice.
    // A charge marks the price billed (active): the event shows it as it was before.
    const fresh = await recurringPrice(api, { unitAmount: 900 });
    for (const extra of [
      { collection_method: 'send_invoice' },
      { items: [{ price: fresh, quantity: 1, tax: [exclusive.id] }] },
    ]) {
      const body = await validBody(extra);
      const price = expectStatus(await api.get(`/prices/${body.items[0]!.price}`), 200);
      const answer = expectStatus(await api.post('/subscriptions', body), 201);
      expect(answer.latest_invoice).toEqual(expect.any(String));
      const [created] = await subscriptionEvents(world, answer.id);
      const data = created!.data as { updated_ms: number };
      expect(data.updated_ms).toBeLessThan(answer.updated_ms);
      const items = { ...answer.items, data: [{ ...answer.items.data[0], price }] };
      const first = {
        ...answer,
        items,
        current_period_start: null,
        current_period_end: null,
        updated_ms: data.updated_ms,
      };
      expect(await eventText(answer.id)).toBe(await asJsonb(subscriptionEventData(first)));
    }
  });

  it('writes a new subscription in one statement only while its prices are as the checks read them; else nothing (the transaction judges)', async () => {
    const { prisma } = world.app;
    const priceId = await recurringPrice(api);
    const read = expectStatus(await api.get(`/prices/${priceId}`), 200);
    // One start date for every attempt, so that their objects differ only in ids and times of writing.
    const startDate = Math.floor((await now()) / 1000) * 1000 + 30 * DAY_MS;
    const attempt = async (inTx = false) => {
      const state = {
        ...initialState(
          {
            ...{
              id: newId('subscription'),
              accountId: world.accountId,
              customerId: customer,
              currency: 'USD',
              interval: 'month',
              intervalCount: 1,
            },
            ...{
              collectionMethod: 'charge_automatically',
              defaultPaymentMethodId: null,
              trialDays: 0,
              endDate: null,
              startBillingDate: null,
            },
            items: [{ id: newId('subscriptionItem'), priceId, quantity: 1, taxRateIds: [] }],
            startDate,
          },
          await now(),
        ),
        version: 1,
      };
      const object = inTx
        ? ((await prisma.$transaction((tx) => insertSubscriptionInTx(tx, state, [read])))?.object ?? null)
        : await insertSubscription(prisma, state, [read], subscriptionWorkflowStart(world.taskQueue, state, null));
      const written = await Promise.all([
        prisma.subscription.count({ where: { id: state.id } }),
        prisma.subscriptionItem.count({ where: { subscriptionId: state.id } }),
        prisma.workflowStart.count({ where: { workflowId: subscriptionWorkflowId(state.id) } }),
        prisma.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM events WHERE data->>'id' = ${state.id}`.then(
          ([row]) => row!.n,
        ),
      ]);
      await prisma.workflowStart.deleteMany({ where: { workflowId: subscriptionWorkflowId(state.id) } });
      return { object, written };
    };
    // The event wakes the webhook relay at commit, as recordEvent's NOTIFY does.
    const listener = await poolOf(prisma)!.connect();
    const notified: string[] = [];
    listener.on('notification', (message) => notified.push(message.payload ?? ''));
    await listener.query('LISTEN billing_events');
    const fresh = await attempt();
    expect(fresh.object).toMatchObject({ status: 'scheduled', items: { data: [{ price: read }] } });
    expect(fresh.written).toEqual([1, 1, 1, 1]);
    const [event] = await prisma.$queryRaw<
      { id: string }[]
    >`SELECT id FROM events WHERE data->>'id' = ${fresh.object!.id}`;
    for (let tries = 0; tries < 50 && !notified.includes(event!.id); tries += 1)
      await new Promise((resolve) => setTimeout(resolve, 20));
    await listener.query('UNLISTEN billing_events');
    listener.release();
    expect(notified).toContain(event!.id);
    // In a transaction (the creation that bills at once) the caller records the workflow's start.
    const inTx = await attempt(true);
    expect(inTx.object).toEqual({
      ...fresh.object,
      id: inTx.object!.id,
      items: expect.anything(),
      created: inTx.object!.created,
      updated_ms: inTx.object!.updated_ms,
    });
    expect(inTx.written).toEqual([1, 1, 0, 1]);
    for (const { object } of [fresh, inTx]) await prisma.subscription.delete({ where: { id: object!.id } });
    // Changed since (its updated_ms moved), then gone: nothing written, null answered.
    await prisma.price.update({ where: { id: priceId }, data: { description: 'changed meanwhile' } });
    expect(await attempt()).toEqual({ object: null, written: [0, 0, 0, 0] });
    expect(await attempt(true)).toEqual({ object: null, written: [0, 0, 0, 0] });
    await prisma.price.delete({ where: { id: priceId } });
    expect(await attempt()).toEqual({ object: null, written: [0, 0, 0, 0] });
  });

  it('applies tax rates to the invoice lines; default_payment_method pays', async () => {
    const tax = await createTaxRate(api, 10, false);
    const card = await addPaymentMethod(
      api,
      customer,
      cardBody(CARDS.succeeds, { billing_details: { name: 'Second card' } }),
    );
    const subscription = await createSubscription(
      api,
      await validBody({ items: [{ price: monthly, quantity: 1, tax: [tax.id] }], default_payment_method: card.id }),
    );
    expect(subscription).toMatchObject({ default_payment_method: card.id, items: { data: [{ tax_rates: [tax.id] }] } });
    const [invoice] = await invoicesOf(world, subscription.id);
    expect(invoice).toMatchObject({
      status: 'paid',
      subtotal: 1500n,
      tax: 150n,
      total: 1650n,
      paymentMethodId: card.id,
    });
  });

  it("a tax-inclusive price keeps its tax inside on the first invoice, whatever the rate's flag, and in the period ceiling", async () => {
    const exclusive = await createTaxRate(api, 10, false);
    const included = await recurringPrice(api, { unitAmount: 1000, taxBehavior: 'inclusive' });
    const subscription = await createSubscription(
      api,
      await validBody({ items: [{ price: included, quantity: 1, tax: [exclusive.id] }] }),
    );
    const [invoice] = await invoicesOf(world, subscription.id);
    // 1000 / 1.1 = 909.09 -> 909 excluding tax; the customer is charged the $10.00 the price says.
    expect(invoice).toMatchObject({
      status: 'paid',
      subtotal: 1000n,
      subtotalExcludingTax: 909n,
      tax: 91n,
      total: 1000n,
      amountPaid: 1000n,
    });
    expect(invoice!.totalTaxes).toEqual([
      { amount: 91, tax_behavior: 'inclusive', tax_rate: exclusive.id, taxable_amount: 909 },
    ]);
    // 95000000 cents with the tax inside stays under the ceiling (on top it would pass it).
    const nearCeiling = await recurringPrice(api, { unitAmount: 95_000_000, taxBehavior: 'inclusive' });
    const body = await validBody({
      items: [{ price: nearCeiling, quantity: 1, tax: [exclusive.id] }],
      collection_method: 'send_invoice',
    });
    const large = await createSubscription(api, body);
    expect((await invoicesOf(world, large.id))[0]).toMatchObject({ total: 95_000_000n, tax: 8_636_364n });
    // Another account cannot subscribe its customer to the price or use the rate.
    const stolen = await other.post('/subscriptions', { ...body, customer: otherCustomer });
    expect(stolen.status).toBe(404);
    expect(stolen.body.error.param).toBe('items.0.price');
  });

  it('honours Idempotency-Key: the same request twice makes one subscription', async () => {
    const body = await validBody();
    const headers = { 'Idempotency-Key': `sub-${Date.now()}` };
    const first = await api.post('/subscriptions', body, headers);
    const second = await api.post('/subscriptions', body, headers);
    expect(first.status).toBe(201);
    expect(second.body.id).toBe(first.body.id);
  });

  const past = unix(Date.now()) - 86_400;
  it.each([
    [{ customer: undefined }, 'customer', 'parameter_missing'],
    [{ items: undefined }, 'items', 'parameter_missing'],
    [{ items: [] }, 'items', 'parameter_invalid'],
    [{ items: 'price_x' }, 'items', 'parameter_invalid'],
    [{ items: [{ quantity: 1 }] }, 'items.0.price', 'parameter_missing'],
    // A missing quantity is judged against the price (a metered one takes none): test/usage/usage-arrears.test.ts.
    [{ items: [{ price: 'price_abc', quantity: 0 }] }, 'items.0.quantity', 'parameter_invalid'],
    [{ items: [{ price: 'price_abc', quantity: -2 }] }, 'items.0.quantity', 'parameter_invalid'],
    [{ items: [{ price: 'price_abc', quantity: 1.5 }] }, 'items.0.quantity', 'parameter_invalid'],
    [{ items: [{ price: 'price_abc', quantity: 1, colour: 'red' }] }, 'items.0.colour', 'parameter_unknown'],
    [{ items: [{ price: 'price_abc', quantity: 1, tax: ['txr_a', 'txr_a'] }] }, 'items.0.tax', 'parameter_invalid'],
    [{ items: [{ price: 'not a price', quantity: 1 }] }, 'items.0.price', 'parameter_invalid'],
    [{ trial_days: undefined }, 'trial_days', 'parameter_missing'],
    [{ trial_days: -1 }, 'trial_days', 'parameter_invalid'],
    [{ trial_days: 731 }, 'trial_days', 'parameter_invalid'],
    [{ trial_days: '3' }, 'trial_days', 'parameter_invalid'],
    [{ start_date: undefined }, 'start_date', 'parameter_missing'],
    [{ start_date: 0 }, 'start_date', 'parameter_invalid'],
    [{ start_date: -100 }, 'start_date', 'parameter_invalid'],
    [{ start_date: 1.5 }, 'start_date', 'parameter_invalid'],
    [{ start_date: '2027-01-01' }, 'start_date', 'parameter_invalid'],
    [{ end_date: 0 }, 'end_date', 'parameter_invalid'],
    [{ start_date: past, end_date: past - 10 }, 'end_date', 'parameter_invalid'],
    [{ start_date: past - 100, end_date: past }, 'end_date', 'parameter_invalid'],
    [{ start_billing_date: -1 }, 'start_billing_date', 'parameter_invalid'],
    [{ start_date: past, start_billing_date: past - 1 }, 'start_billing_date', 'parameter_invalid'],
    [{ collection_method: 'cash' }, 'collection_method', 'parameter_invalid'],
    [{ default_payment_method: 'card_123' }, 'default_payment_method', 'parameter_invalid'],
    // A coupon id is a resource id (coup_...): 'FREE' is not one (docs/api.md, "Coupons and discounts").
    [{ coupon: 'FREE' }, 'coupon', 'parameter_invalid'],
  ])('rejects %j with 400 naming %s, and writes nothing', async (overrides, param, code) => {
    const before = await subscriptionCount();
    const body: Record<string, unknown> = { ...(await validBody()), ...overrides };
    for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key];
    const response = await api.post('/subscriptions', body);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ type: 'invalid_request_error', param, code });
    expect(await subscriptionCount()).toBe(before);
  });

  it('rejects prices that cannot be billed together, naming the item: one-time, another interval, another count, another currency, repeated', async () => {
    const euro = newId('price');
    const product = await world.app.prisma.price.findUniqueOrThrow({ where: { id: monthly } });
    await world.app.prisma.price.create({
      data: {
        id: euro,
        accountId: world.accountId,
        productId: product.productId,
        currency: 'EUR',
        unitAmount: 100,
        type: 'recurring',
        recurringInterval: 'month',
        recurringIntervalCount: 1,
        taxBehavior: 'exclusive',
      },
    });
    const before = await subscriptionCount();
    for (const [items, param, fragment] of [
      [[{ price: oneTime, quantity: 1 }], 'items.0.price', 'one-time'],
      [
        [
          { price: monthly, quantity: 1 },
          { price: yearly, quantity: 1 },
        ],
        'items.1.price',
        'interval',
      ],
      [
        [
          { price: monthly, quantity: 1 },
          { price: quarterly, quantity: 1 },
        ],
        'items.1.price',
        'interval',
      ],
      [
        [
          { price: monthly, quantity: 1 },
          { price: euro, quantity: 1 },
        ],
        'items.1.price',
        'currency',
      ],
      [
        [
          { price: monthly, quantity: 1 },
          { price: monthly, quantity: 2 },
        ],
        'items.1.price',
        'another item',
      ],
    ] as const) {
      const response = await api.post('/subscriptions', await validBody({ items }));
      expect(response.status).toBe(400);
      expect(response.body.error.param).toBe(param);
      expect(response.body.error.message).toContain(fragment);
    }
    expect(await subscriptionCount()).toBe(before);
  });

  it('answers 404 naming the field for unknown or other-account customers, prices, tax rates and payment methods', async () => {
    const before = await subscriptionCount();
    const foreignTax = await createTaxRate(other, 5, false);
    const foreignMethod = (await customerWithCard(other)).method.id;
    for (const [overrides, param] of [
      [{ customer: 'cus_doesnotexist' }, 'customer'],
      [{ customer: otherCustomer }, 'customer'],
      [{ items: [{ price: 'price_doesnotexist', quantity: 1 }] }, 'items.0.price'],
      [{ items: [{ price: otherPrice, quantity: 1 }] }, 'items.0.price'],
      [{ items: [{ price: monthly, quantity: 1, tax: ['txr_doesnotexist'] }] }, 'items.0.tax'],
      [{ items: [{ price: monthly, quantity: 1, tax: [foreignTax.id] }] }, 'items.0.tax'],
      [{ default_payment_method: 'pm_doesnotexist' }, 'default_payment_method'],
      [{ default_payment_method: foreignMethod }, 'default_payment_method'],
    ] as const) {
      const response = await api.post('/subscriptions', await validBody(overrides));
      expect(response.status).toBe(404);
      expect(response.body.error).toMatchObject({ type: 'not_found', param });
    }
    expect(await subscriptionCount()).toBe(before);
  });

  it('a run started with { create } (before the API wrote the row itself) refuses a price that vanished: no row, workflow ended', async () => {
    // The creation path of workflows started before decisions.md §14: update-with-start, the workflow writes the row.
    const id = newId('subscription');
    const startWorkflowOperation = new WithStartWorkflowOperation(SUBSCRIPTION_WORKFLOW_TYPE, {
      workflowId: subscriptionWorkflowId(id),
      taskQueue: world.taskQueue,
      workflowIdConflictPolicy: 'FAIL',
      args: [
        {
          create: {
            id,
            accountId: world.accountId,
            customerId: customer,
            currency: 'USD',
            interval: 'month',
            intervalCount: 1,
            collectionMethod: 'charge_automatically',
            defaultPaymentMethodId: null,
            items: [{ id: newId('subscriptionItem'), priceId: 'price_deletedmeanwhile', quantity: 1, taxRateIds: [] }],
            trialDays: 0,
            startDate: await now(),
            endDate: null,
            startBillingDate: null,
          },
        },
      ],
    });
    const error = await world.env.client.workflow
      .executeUpdateWithStart(createdUpdate, { startWorkflowOperation })
      .catch((caught: unknown) => caught);
    expect(rejectionOf(error)).toMatchObject({ kind: 'not_found', param: 'items.0.price' });
    expect(await world.app.prisma.subscription.findUnique({ where: { id } })).toBeNull();
    expect((await workflowHandle(world, id).describe()).status.name).toBe('COMPLETED');
  });

  it('refuses items that would charge more than MAX_CHARGE_AMOUNT per period (exclusive tax on top), naming the field; nothing is written', async () => {
    const atCeiling = await recurringPrice(api, { unitAmount: MAX_CHARGE_AMOUNT });
    const large = await recurringPrice(api, { unitAmount: 60_000_000 });
    const nearCeiling = await recurringPrice(api, { unitAmount: 95_000_000 });
    const exclusive = await createTaxRate(api, 10, false);
    const before = await subscriptionCount();
    for (const [items, param] of [
      [[{ price: atCeiling, quantity: 100_000 }], 'items.0.quantity'],
      [[{ price: atCeiling, quantity: 2 }], 'items.0.quantity'],
      [
        [
          { price: monthly, quantity: 1 },
          { price: large, quantity: 1 },
          { price: nearCeiling, quantity: 1 },
        ],
        'items',
      ],
      [[{ price: nearCeiling, quantity: 1, tax: [exclusive.id] }], 'items.0.quantity'],
    ] as const) {
      const response = await api.post('/subscriptions', await validBody({ items }));
      expect([JSON.stringify(items), response.status, response.body.error?.param, response.body.error?.code]).toEqual([
        JSON.stringify(items),
        400,
        param,
        'amount_too_large',
      ]);
    }
    expect(await subscriptionCount()).toBe(before);
  });

  it('refuses an inactive tax rate and a payment method of another customer with 400', async () => {
    const tax = await createTaxRate(api, 7, false);
    expectStatus(await api.patch(`/taxRates/${tax.id}`, { active: false }), 200);
    const inactive = await api.post(
      '/subscriptions',
      await validBody({ items: [{ price: monthly, quantity: 1, tax: [tax.id] }] }),
    );
    expect(inactive.status).toBe(400);
    expect(inactive.body.error.param).toBe('items.0.tax');
    const { method } = await customerWithCard(api);
    const foreignCard = await api.post('/subscriptions', await validBody({ default_payment_method: method.id }));
    expect(foreignCard.status).toBe(400);
    expect(foreignCard.body.error).toMatchObject({
      param: 'default_payment_method',
      code: 'payment_method_not_attached',
    });
  });
});

describe('GET /subscriptions', () => {
  let listApi: ApiClient;
  let listAccountId: string;
  const ids: string[] = [];
  let firstCustomer: string;

  beforeAll(async () => {
    const account = await createTestAccount(world.app.prisma, { name: 'Lister' });
    listAccountId = account.accountId;
    listApi = apiClient(world.app.baseUrl, account.apiKey);
    firstCustomer = (await customerWithCard(listApi)).customer.id;
    const secondCustomer = (await customerWithCard(listApi)).customer.id;
    const price = await recurringPrice(listApi);
    const start = unix(await now());
    for (const [index, body] of [
      { customer: firstCustomer, start_date: start, trial_days: 0 },
      { customer: firstCustomer, start_date: start, trial_days: 7 },
      { customer: secondCustomer, start_date: start + 86_400 * 10, trial_days: 0 },
    ].entries()) {
      ids.push((await createSubscription(listApi, { ...body, items: [{ price, quantity: index + 1 }] })).id);
    }
  });

  it('lists newest first with the page envelope, and filters by status and customer', async () => {
    const page = expectStatus(await listApi.get('/subscriptions?take=2'), 200);
    expect(page.meta).toEqual({ page: 1, take: 2, itemsTotal: 3, pagesTotal: 2 });
    expect(page.data.map((s: { id: string }) => s.id)).toEqual([ids[2], ids[1]]);
    expect(
      expectStatus(await listApi.get('/subscriptions?page=2&take=2'), 200).data.map((s: { id: string }) => s.id),
    ).toEqual([ids[0]]);
    expect(
      expectStatus(await listApi.get('/subscriptions?status=trialing'), 200).data.map((s: { id: string }) => s.id),
    ).toEqual([ids[1]]);
    expect(expectStatus(await listApi.get(`/subscriptions?customer=${firstCustomer}`), 200).meta.itemsTotal).toBe(2);
    expect(expectStatus(await listApi.get('/subscriptions?status=canceled'), 200).data).toEqual([]);
    expect(await world.app.prisma.subscription.count({ where: { accountId: listAccountId } })).toBe(3);
  });

  it.each([
    ['status=overdue', 'status'],
    ['take=0', 'take'],
    ['take=101', 'take'],
    ['page=0', 'page'],
    ['customer=not valid', 'customer'],
    ['sort=asc', 'sort'],
    ['starting_after=not valid', 'starting_after'],
    ['ending_before=', 'ending_before'],
  ])('rejects ?%s with 400 naming %s', async (query, param) => {
    const response = await listApi.get(`/subscriptions?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.error.param).toBe(param);
  });

  it('starting_after and ending_before walk the list as pages do, with a filter too; exact itemsTotal, has_more, no page (docs/decisions.md §36)', async () => {
    const idsOf = (body: { data: { id: string }[] }) => body.data.map((s) => s.id);
    const walked: string[] = [];
    let body = expectStatus(await listApi.get('/subscriptions?take=1'), 200);
    walked.push(...idsOf(body));
    for (;;) {
      body = expectStatus(await listApi.get(`/subscriptions?take=1&starting_after=${walked.at(-1)}`), 200);
      if (body.data.length === 0) break;
      expect(body.meta).toEqual({ take: 1, itemsTotal: 3, pagesTotal: 3, has_more: walked.length + 1 < 3 });
      walked.push(...idsOf(body));
    }
    expect(walked).toEqual([ids[2], ids[1], ids[0]]);
    const back = expectStatus(await listApi.get(`/subscriptions?take=5&ending_before=${ids[0]}`), 200);
    expect(idsOf(back)).toEqual([ids[2], ids[1]]);
    const mine = expectStatus(
      await listApi.get(`/subscriptions?customer=${firstCustomer}&starting_after=${ids[1]}`),
      200,
    );
    expect(idsOf(mine)).toEqual([ids[0]]);
    expect(mine.meta.itemsTotal).toBe(2);
  });

  it('a cursor of another account or an unknown id is 404 naming it; both cursors at once are 400', async () => {
    const theirs = expectStatus(await other.get(`/subscriptions?starting_after=${ids[0]}`), 404);
    expect(theirs.error).toMatchObject({ param: 'starting_after' });
    const unknown = await listApi.get(`/subscriptions?ending_before=${newId('subscription')}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.param).toBe('ending_before');
    const both = await listApi.get(`/subscriptions?starting_after=${ids[0]}&ending_before=${ids[1]}`);
    expect(both.status).toBe(400);
  });

  it("never shows another account's subscriptions", async () => {
    const listed = expectStatus(await other.get('/subscriptions?take=100'), 200);
    expect(listed.data.filter((s: { id: string }) => ids.includes(s.id))).toEqual([]);
  });
});

describe('changing a subscription', () => {
  let subscription: any;
  beforeEach(async () => {
    const created = await createSubscription(api, await validBody());
    // The workflow records the first period as billed after the 201 (a write of the row, same fields).
    await settled(world, created.id);
    subscription = expectStatus(await api.get(`/subscriptions/${created.id}`), 200);
  });

  it('answers 404 to another account on every endpoint, exactly like an unknown id, and 400 to a malformed id', async () => {
    const calls: [string, (client: ApiClient, id: string) => Promise<{ status: number; body: any }>][] = [
      ['GET', (client, id) => client.get(`/subscriptions/${id}`)],
      ['PATCH', (client, id) => client.patch(`/subscriptions/${id}`, { collection_method: 'send_invoice' })],
      ['DELETE', (client, id) => client.delete(`/subscriptions/${id}`)],
      ['DELETE at period end', (client, id) => client.delete(`/subscriptions/${id}?at_period_end=true`)],
      ['pause', (client, id) => client.post(`/subscriptions/${id}/pause`)],
      ['resume', (client, id) => client.post(`/subscriptions/${id}/resume`)],
    ];
    for (const [name, call] of calls) {
      const foreign = await call(other, subscription.id);
      const unknown = await call(api, 'sub_doesnotexist');
      expect([name, foreign.status, foreign.body.error.type]).toEqual([name, 404, 'not_found']);
      expect([name, unknown.status]).toEqual([name, 404]);
      expect(foreign.body.error.message).toBe(unknown.body.error.message.replace('sub_doesnotexist', subscription.id));
      const malformed = await call(api, 'not-an-id!');
      expect([name, malformed.status, malformed.body.error.param]).toEqual([name, 404, 'id']);
    }
    expect(expectStatus(await api.get(`/subscriptions/${subscription.id}`), 200)).toMatchObject({
      status: 'active',
      collection_method: 'charge_automatically',
    });
  });

  it('PATCH changes items, collection method, end_date and cancel_at, each with subscription.updated', async () => {
    const itemId = subscription.items.data[0].id;
    const end = unix((await now()) + 400 * DAY_MS);
    const patched = expectStatus(
      await api.patch(`/subscriptions/${subscription.id}`, {
        items: [
          { id: itemId, quantity: 5 },
          { price: (await recurringPrice(api)) as string, quantity: 2 },
        ],
        collection_method: 'send_invoice',
        end_date: end,
      }),
      200,
      'PATCH',
    );
    expect(patched).toMatchObject({
      collection_method: 'send_invoice',
      end_date: end,
      items: { total_count: 2, data: [{ id: itemId, quantity: 5 }, { quantity: 2 }] },
    });
    const removed = expectStatus(
      await api.patch(`/subscriptions/${subscription.id}`, { items: [{ id: itemId, deleted: true }], end_date: null }),
      200,
    );
    expect(removed).toMatchObject({ end_date: null, items: { total_count: 1, data: [{ quantity: 2 }] } });
    const cancelAt = unix((await now()) + 100 * DAY_MS);
    expect(
      expectStatus(await api.patch(`/subscriptions/${subscription.id}`, { cancel_at: cancelAt }), 200),
    ).toMatchObject({ cancel_at: cancelAt });
    const updates = (await subscriptionEvents(world, subscription.id)).filter(
      (event) => event.type === 'subscription.updated',
    );
    expect(updates.length).toBeGreaterThanOrEqual(4);
    expect(updates.at(-1)!.data).toMatchObject({ cancel_at: cancelAt });
  });

  it('PATCH rejects what the subscription cannot take, naming the field, and changes nothing', async () => {
    const itemId = subscription.items.data[0].id;
    for (const [body, status, param] of [
      [{ items: [{ id: 'si_doesnotexist', quantity: 2 }] }, 400, 'items.0.id'],
      [{ items: [{ id: itemId, deleted: true }] }, 400, 'items'],
      [{ items: [{ id: itemId, quantity: 0 }] }, 400, 'items.0.quantity'],
      [{ items: [{ price: monthly }] }, 400, 'items.0.quantity'],
      [{ items: [{ quantity: 1 }] }, 400, 'items.0.price'],
      [{ items: [{ id: itemId, deleted: true, quantity: 1 }] }, 400, 'items.0.deleted'],
      [{ items: [{ price: yearly, quantity: 1 }] }, 400, 'items.0.price'],
      [{ items: [{ price: monthly, quantity: 1 }] }, 400, 'items'],
      [{ items: [{ price: otherPrice, quantity: 1 }] }, 404, 'items.0.price'],
      [{ cancel_at: unix(Date.now()) - 10 }, 400, 'cancel_at'],
      [{ cancel_at: unix(Date.now()) + 86_400, cancel_at_period_end: true }, 400, 'cancel_at_period_end'],
      [{ end_date: 0 }, 400, 'end_date'],
      [{ default_payment_method: 'pm_doesnotexist' }, 404, 'default_payment_method'],
      [{ status: 'paused' }, 400, 'status'],
    ] as const) {
      const response = await api.patch(`/subscriptions/${subscription.id}`, body);
      expect([JSON.stringify(body), response.status, response.body.error?.param]).toEqual([
        JSON.stringify(body),
        status,
        param,
      ]);
    }
    const unchanged = expectStatus(await api.get(`/subscriptions/${subscription.id}`), 200);
    expect(unchanged).toEqual(subscription);
  });

  it('PATCH refuses items that would charge more than MAX_CHARGE_AMOUNT per period, naming the field, and changes nothing', async () => {
    const itemId = subscription.items.data[0].id;
    const large = await recurringPrice(api, { unitAmount: 60_000_000 });
    for (const [items, param] of [
      // 1500 x 100000 = 150000000 cents
      [[{ id: itemId, quantity: 100_000 }], 'items.0.quantity'],
      [[{ price: large, quantity: 2 }], 'items.0.quantity'],
      [
        [
          { price: large, quantity: 1 },
          { id: itemId, quantity: 30_000 },
        ],
        'items',
      ],
    ] as const) {
      const response = await api.patch(`/subscriptions/${subscription.id}`, { items });
      expect([JSON.stringify(items), response.status, response.body.error?.param]).toEqual([
        JSON.stringify(items),
        400,
        param,
      ]);
    }
    expect(expectStatus(await api.get(`/subscriptions/${subscription.id}`), 200)).toEqual(subscription);
    // Removing the item that would pass the ceiling makes room: the same large price then fits.
    const swapped = expectStatus(
      await api.patch(`/subscriptions/${subscription.id}`, {
        items: [
          { price: large, quantity: 1 },
          { id: itemId, deleted: true },
        ],
      }),
      200,
    );
    expect(swapped.items.data.map((item: any) => item.price.unit_amount)).toEqual([60_000_000]);
  });

  it('cancel at period end follows one rule on a paused subscription: DELETE ?at_period_end=true and PATCH both answer 409, nothing changes', async () => {
    expect(expectStatus(await api.post(`/subscriptions/${subscription.id}/pause`), 200).status).toBe('paused');
    const paused = expectStatus(await api.get(`/subscriptions/${subscription.id}`), 200);
    for (const response of [
      await api.delete(`/subscriptions/${subscription.id}?at_period_end=true`),
      await api.patch(`/subscriptions/${subscription.id}`, { cancel_at_period_end: true }),
    ]) {
      expect(response.status).toBe(409);
      expect(response.body.error).toMatchObject({ type: 'conflict', code: 'no_current_period' });
    }
    expect(expectStatus(await api.get(`/subscriptions/${subscription.id}`), 200)).toEqual(paused);
    expect(expectStatus(await api.delete(`/subscriptions/${subscription.id}`), 200).status).toBe('canceled');
  });

  it('operator updates sent with the Temporal client are validated: no argument, a wrong type, an unknown field are rejected and the workflow keeps working', async () => {
    const handle = workflowHandle(world, subscription.id);
    const refusals: [string, unknown[], string][] = [
      ['cancel', [], 'args'],
      ['cancel', [{}], 'args.0'],
      ['cancel', [{ atPeriodEnd: 'yes' }], 'args.0.atPeriodEnd'],
      ['cancel', [{ atPeriodEnd: true, now: 1 }], 'args.0.now'],
      ['cancel', [{ atPeriodEnd: true, at_period_end: false }], 'args.0'],
      ['pause', [{ until: 5 }], 'args.0.until'],
      ['resume', ['now'], 'args'],
      ['update', [], 'args'],
      ['update', [{ cancelAtPeriodEnd: 'true' }], 'args.0.cancelAtPeriodEnd'],
      [
        'update',
        [
          {
            items: [{ param: 'items.0', change: { kind: 'update', id: subscription.items.data[0].id, quantity: -1 } }],
          },
        ],
        'args.0.items.0.change.quantity',
      ],
      ['update', [{ collection_method: 'send_invoice' }], 'args.0.collection_method'],
    ];
    const answers = [];
    for (const [name, args] of refusals) {
      const error = await handle.executeUpdate(name, { args: args as [unknown] }).then(
        () => null,
        (failure: unknown) => failure,
      );
      const cause = error instanceof WorkflowUpdateFailedError ? error.cause : error;
      answers.push([name, args, cause instanceof ApplicationFailure ? cause.details?.[0] : String(cause)]);
    }
    expect(answers).toEqual(
      refusals.map(([name, args, param]) => [
        name,
        args,
        expect.objectContaining({ kind: 'invalid', code: 'parameter_invalid', param }),
      ]),
    );
    // The workflow never failed a task: the next API call is answered at once, and the API's spelling works for operators.
    expect(
      expectStatus(await api.patch(`/subscriptions/${subscription.id}`, { collection_method: 'send_invoice' }), 200)
        .collection_method,
    ).toBe('send_invoice');
    const atPeriodEnd: any = await handle.executeUpdate('cancel', { args: [{ at_period_end: true }] });
    expect(atPeriodEnd).toMatchObject({
      status: 'active',
      cancel_at_period_end: true,
      cancel_at: subscription.current_period_end,
    });
    const history = await handle.fetchHistory();
    expect(history.events?.some((event) => event.workflowTaskFailedEventAttributes)).toBe(false);
    expect((await handle.describe()).status.name).toBe('RUNNING');
  });

  it('an update that changes nothing is refused when empty and, when it sets what is already set, answers the subscription with no new version and no event', async () => {
    const created = await createSubscription(api, await validBody({ items: [{ price: monthly, quantity: 3 }] }));
    const handle = workflowHandle(world, created.id);
    const empty = await handle.executeUpdate('update', { args: [{}] }).catch((failure: unknown) => failure);
    expect(empty).toBeInstanceOf(WorkflowUpdateFailedError);
    expect(((empty as WorkflowUpdateFailedError).cause as ApplicationFailure).details?.[0]).toMatchObject({
      kind: 'invalid',
      code: 'parameter_missing',
    });
    await settled(world, created.id);
    const before = await subscriptionEvents(world, created.id);
    const row = await world.app.prisma.subscription.findUniqueOrThrow({ where: { id: created.id } });
    const same = expectStatus(
      await api.patch(`/subscriptions/${created.id}`, {
        items: [{ id: created.items.data[0].id, quantity: 3 }],
        cancel_at_period_end: false,
      }),
      200,
    );
    expect(same).toEqual(expectStatus(await api.get(`/subscriptions/${created.id}`), 200));
    expect((await world.app.prisma.subscription.findUniqueOrThrow({ where: { id: created.id } })).workflowVersion).toBe(
      row.workflowVersion,
    );
    expect(await subscriptionEvents(world, created.id)).toHaveLength(before.length);
  });

  it('refuses forbidden moves with 409: resume an active one, pause a trialing one, anything on a canceled one', async () => {
    const resume = await api.post(`/subscriptions/${subscription.id}/resume`);
    expect(resume.status).toBe(409);
    expect(resume.body.error).toMatchObject({ type: 'conflict', code: 'subscription_not_paused' });
    expect(resume.body.error.message).toContain('only a paused subscription can be resumed');

    const trialing = await createSubscription(api, await validBody({ trial_days: 5 }));
    const pauseTrial = await api.post(`/subscriptions/${trialing.id}/pause`);
    expect(pauseTrial.status).toBe(409);
    expect(pauseTrial.body.error.code).toBe('subscription_not_active');

    expect(expectStatus(await api.delete(`/subscriptions/${subscription.id}`), 200).status).toBe('canceled');
    for (const response of [
      await api.post(`/subscriptions/${subscription.id}/pause`),
      await api.post(`/subscriptions/${subscription.id}/resume`),
      await api.delete(`/subscriptions/${subscription.id}`),
      await api.patch(`/subscriptions/${subscription.id}`, { collection_method: 'send_invoice' }),
    ]) {
      expect(response.status).toBe(409);
      expect(response.body.error).toMatchObject({ type: 'conflict', code: 'subscription_canceled' });
    }
  });

  it('rejects bad query and body fields on DELETE, pause and resume', async () => {
    expect((await api.delete(`/subscriptions/${subscription.id}?at_period_end=maybe`)).body.error.param).toBe(
      'at_period_end',
    );
    expect((await api.delete(`/subscriptions/${subscription.id}?now=true`)).body.error).toMatchObject({
      param: 'now',
      code: 'parameter_unknown',
    });
    expect((await api.post(`/subscriptions/${subscription.id}/pause`, { until: 5 })).body.error).toMatchObject({
      param: 'until',
      code: 'parameter_unknown',
    });
    expect((await api.post(`/subscriptions/${subscription.id}/resume`, { now: true })).status).toBe(400);
    expect(expectStatus(await api.get(`/subscriptions/${subscription.id}`), 200).status).toBe('active');
  });
});

describe('deleting a customer', () => {
  it('is refused with 409 while a subscription runs, and allowed once it is canceled', async () => {
    const { customer: owner } = await customerWithCard(api, CARDS.succeeds);
    const subscription = await createSubscription(api, await validBody({ customer: owner.id }));
    const refused = await api.delete(`/customers/${owner.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ type: 'conflict', code: 'customer_has_active_billing' });
    expect((await api.get(`/customers/${owner.id}`)).status).toBe(200);
    expectStatus(await api.delete(`/subscriptions/${subscription.id}`), 200);
    expect((await api.delete(`/customers/${owner.id}`)).status).toBe(200);
  });
});

describe('dunning settings', () => {
  it('answers the defaults, stores a schedule and outcome, and validates them', async () => {
    const settingsApi = apiClient(world.app.baseUrl, (await createTestAccount(world.app.prisma)).apiKey);
    expect(expectStatus(await settingsApi.get('/settings/dunning'), 200)).toEqual({
      object: 'dunning_settings',
      retry_days: [1, 3, 5],
      outcome: 'cancel',
    });
    expect(
      expectStatus(await settingsApi.put('/settings/dunning', { retry_days: [2, 4], outcome: 'pause' }), 200),
    ).toEqual({
      object: 'dunning_settings',
      retry_days: [2, 4],
      outcome: 'pause',
    });
    expect(expectStatus(await settingsApi.get('/settings/dunning'), 200)).toMatchObject({
      retry_days: [2, 4],
      outcome: 'pause',
    });
    expect(expectStatus(await other.get('/settings/dunning'), 200)).toMatchObject({ retry_days: [1, 3, 5] });
    for (const [body, param] of [
      [{ retry_days: [3, 1], outcome: 'cancel' }, 'retry_days'],
      [{ retry_days: [1, 2, 2], outcome: 'cancel' }, 'retry_days'],
      [{ retry_days: [0], outcome: 'cancel' }, 'retry_days.0'],
      [{ retry_days: [61], outcome: 'cancel' }, 'retry_days.0'],
      [{ retry_days: [1], outcome: 'refund' }, 'outcome'],
      [{ outcome: 'cancel' }, 'retry_days'],
      [{ retry_days: [1], outcome: 'cancel', grace: 3 }, 'grace'],
    ] as const) {
      const response = await settingsApi.put('/settings/dunning', body);
      expect([response.status, response.body.error.param]).toEqual([400, param]);
    }
  });
});

describe('OpenAPI', () => {
  it('documents every subscription endpoint', async () => {
    const document = expectStatus(await api.get('/openapi.json'), 200);
    expect(Object.keys(document.paths['/subscriptions'])).toEqual(expect.arrayContaining(['get', 'post']));
    expect(Object.keys(document.paths['/subscriptions/{id}'])).toEqual(
      expect.arrayContaining(['get', 'patch', 'delete']),
    );
    expect(document.paths['/subscriptions/{id}/pause'].post.responses).toHaveProperty('409');
    expect(document.paths['/subscriptions/{id}/resume'].post).toBeDefined();
    expect(Object.keys(document.paths['/settings/dunning'])).toEqual(expect.arrayContaining(['get', 'put']));
    expect(document.components.schemas.Subscription).toBeDefined();
  });
});
