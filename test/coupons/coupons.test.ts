import {
  apiClient,
  createTestAccount,
  eventsOf,
  startWorkerApp,
  type ApiClient,
  type WorkerApp,
} from '../support/harness';
import { CARDS, createTaxRate, customerWithCard } from '../support/payments';
import { WEBHOOK_EVENTS } from '../../src/webhooks/event-catalog';
import { loadInvoiceDocument } from '../../src/documents/invoice-document.service';
import { renderInvoicePdf } from '../../src/documents/invoice-pdf';
import { pdfText } from '../support/pdf';
import { hostedPath } from '../hosted-pages/pages';
import { advanceClock, billedShape, customerOnClock, subscribeOnClock, subscriptionInvoices } from '../support/clocks';
import { createSubscription, expectStatus, recurringPrice, unix } from '../support/subscriptions';

// Coupons and discounts through HTTP against the real database and the suite's Temporal dev server
// (docs/api.md "Coupons and discounts", docs/decisions.md §37): the coupon's endpoints, redemption on
// customers and subscriptions with its limits (concurrently), discount lines on the invoices of a
// subscription on a test clock, and the upcoming-invoice preview equal to the invoice then billed.

const DAY_S = 86_400;
const START = Date.UTC(2026, 0, 15, 10, 0, 0) / 1000;

let stack: WorkerApp;
let api: ApiClient;
let other: ApiClient;

beforeAll(async () => {
  stack = await startWorkerApp('coupons');
  api = stack.api;
  other = apiClient(stack.app.baseUrl, (await createTestAccount(stack.app.prisma, { name: 'Other' })).apiKey);
}, 60_000);

afterAll(() => stack?.close());

const createCoupon = async (body: Record<string, unknown>, client = api) =>
  expectStatus(await client.post('/coupons', body), 201, 'POST /coupons');

describe('the coupon endpoints', () => {
  it('creates, retrieves, lists and deletes, with events; another account sees 404', async () => {
    const coupon = await createCoupon({
      name: 'Spring sale',
      percent_off: 12.5,
      duration: 'repeating',
      duration_in_months: 3,
      max_redemptions: 10,
      redeem_by: Math.floor(Date.now() / 1000) + 30 * DAY_S,
      metadata: { campaign: 'spring' },
    });
    expect(coupon).toEqual({
      id: expect.stringMatching(/^coup_[a-zA-Z0-9]{24}$/),
      object: 'coupon',
      name: 'Spring sale',
      percent_off: 12.5,
      amount_off: null,
      currency: null,
      duration: 'repeating',
      duration_in_months: 3,
      max_redemptions: 10,
      redeem_by: expect.any(Number),
      times_redeemed: 0,
      valid: true,
      metadata: { campaign: 'spring' },
      created: expect.any(Number),
    });
    expect(expectStatus(await api.get(`/coupons/${coupon.id}`), 200)).toEqual(coupon);
    const fixed = await createCoupon({ amount_off: 500, currency: 'usd', duration: 'once' });
    expect(fixed).toMatchObject({ amount_off: 500, currency: 'USD', percent_off: null, name: null });
    const page = expectStatus(await api.get('/coupons?take=1'), 200);
    expect(page.data.map((each: any) => each.id)).toEqual([fixed.id]);
    expect(page.meta).toMatchObject({ page: 1, take: 1 });
    expect(page.meta.itemsTotal).toBeGreaterThanOrEqual(2);

    expect((await other.get(`/coupons/${coupon.id}`)).status).toBe(404);
    expect((await other.delete(`/coupons/${coupon.id}`)).status).toBe(404);
    expect(expectStatus(await other.get('/coupons'), 200).data).toEqual([]);

    expect(expectStatus(await api.delete(`/coupons/${fixed.id}`), 200)).toEqual({
      id: fixed.id,
      object: 'coupon',
      deleted: true,
    });
    expect((await api.get(`/coupons/${fixed.id}`)).status).toBe(404);
    expect((await api.delete(`/coupons/${fixed.id}`)).status).toBe(404);
    const events = await eventsOf(stack.app.prisma, stack.accountId);
    const types = events.filter((event) => (event.data as any).id === fixed.id).map((event) => event.type);
    expect(types).toEqual(['coupon.created', 'coupon.deleted']);
  });

  it.each([
    [{ duration: 'once' }, 'percent_off'],
    [{ percent_off: 10, amount_off: 100, currency: 'USD', duration: 'once' }, 'amount_off'],
    [{ percent_off: 0.5, duration: 'once' }, 'percent_off'],
    [{ percent_off: 100.01, duration: 'once' }, 'percent_off'],
    [{ percent_off: 12.345, duration: 'once' }, 'percent_off'],
    [{ amount_off: 100_000_000, currency: 'USD', duration: 'once' }, 'amount_off'],
    [{ amount_off: 10.5, currency: 'USD', duration: 'once' }, 'amount_off'],
    [{ amount_off: 100, duration: 'once' }, 'currency'],
    [{ percent_off: 10, currency: 'USD', duration: 'once' }, 'currency'],
    [{ percent_off: 10, duration: 'repeating' }, 'duration_in_months'],
    [{ percent_off: 10, duration: 'forever', duration_in_months: 3 }, 'duration_in_months'],
    [{ percent_off: 10, duration: 'sometimes' }, 'duration'],
    [{ percent_off: 10, duration: 'once', max_redemptions: 0 }, 'max_redemptions'],
    [{ percent_off: 10, duration: 'once', redeem_by: 1_000_000 }, 'redeem_by'],
    [{ percent_off: 10, duration: 'once', code: 'X' }, 'code'],
  ])('refuses %j with 400 naming %s', async (body, param) => {
    const response = await api.post('/coupons', body);
    expect(response.status).toBe(400);
    expect(response.body.error.param).toBe(param);
  });
});

describe('redemption', () => {
  it('on a customer: its discount, shown on the customer; limits answer 409; another account’s coupon 404', async () => {
    const coupon = await createCoupon({ percent_off: 20, duration: 'forever', max_redemptions: 2 });
    const customer = expectStatus(await api.post('/customers', { name: 'Discounted', coupon: coupon.id }), 201);
    expect(customer.discount).toEqual({
      id: expect.stringMatching(/^di_/),
      object: 'discount',
      coupon: { ...coupon, times_redeemed: 1 },
      customer: customer.id,
      subscription: null,
      start: expect.any(Number),
      end: null,
    });
    expect(expectStatus(await api.get(`/customers/${customer.id}`), 200).discount).toEqual(customer.discount);
    expect(expectStatus(await api.get(`/coupons/${coupon.id}`), 200)).toMatchObject({ times_redeemed: 1, valid: true });

    const second = expectStatus(await api.post('/customers', { name: 'Second' }), 201);
    const updated = expectStatus(await api.patch(`/customers/${second.id}`, { coupon: coupon.id }), 200);
    expect(updated.discount.coupon.id).toBe(coupon.id);
    const third = await api.post('/customers', { name: 'Third', coupon: coupon.id });
    expect(third.status).toBe(409);
    expect(third.body.error).toMatchObject({ type: 'conflict', code: 'coupon_max_redemptions_reached' });
    expect(expectStatus(await api.get(`/coupons/${coupon.id}`), 200)).toMatchObject({
      times_redeemed: 2,
      valid: false,
    });

    // Another account's coupon is unknown here: 404 naming the field, nothing written.
    const theirs = await createCoupon({ percent_off: 50, duration: 'once' }, other);
    const refused = await api.post('/customers', { name: 'Nope', coupon: theirs.id });
    expect(refused.status).toBe(404);
    expect(refused.body.error.param).toBe('coupon');
    expect((await api.patch(`/customers/${second.id}`, { coupon: theirs.id })).status).toBe(404);
    expect(expectStatus(await other.get(`/coupons/${theirs.id}`), 200).times_redeemed).toBe(0);

    const events = await eventsOf(stack.app.prisma, stack.accountId, 'customer.discount.created');
    expect(events.filter((event) => (event.data as any).coupon.id === coupon.id)).toHaveLength(2);
    // Every coupon event's data is what the webhooks' document says it is.
    for (const event of await eventsOf(stack.app.prisma, stack.accountId))
      if (/^(coupon|customer\.discount)\./.test(event.type)) WEBHOOK_EVENTS.get(event.type)!.data.parse(event.data);
  });

  it('past redeem_by answers 409 (a customer on a test clock past it)', async () => {
    const redeemBy = Math.floor(Date.now() / 1000) + DAY_S;
    const coupon = await createCoupon({ percent_off: 10, duration: 'once', redeem_by: redeemBy });
    const clock = expectStatus(await api.post('/test-helpers/test-clocks', { frozen_time: redeemBy + 60 }), 201);
    const late = await api.post('/customers', { name: 'Late', test_clock: clock.id, coupon: coupon.id });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('coupon_expired');
    expect((await api.get(`/customers?test_clock=${clock.id}`)).body).toEqual([]);
  });

  it('concurrent redemptions of the last slots: exactly as many win as there are slots', async () => {
    const coupon = await createCoupon({ amount_off: 100, currency: 'USD', duration: 'once', max_redemptions: 3 });
    expectStatus(await api.post('/customers', { name: 'Early', coupon: coupon.id }), 201);
    expectStatus(await api.post('/customers', { name: 'Early 2', coupon: coupon.id }), 201);
    // One slot left, ten requests at once.
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, index) => api.post('/customers', { name: `Racer ${index}`, coupon: coupon.id })),
    );
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(1);
    expect(answers.filter((answer) => answer.status === 409)).toHaveLength(9);
    expect(expectStatus(await api.get(`/coupons/${coupon.id}`), 200).times_redeemed).toBe(3);

    // And on subscriptions' PATCH, two at once for the last slot of another coupon.
    const last = await createCoupon({ percent_off: 10, duration: 'forever', max_redemptions: 1 });
    const price = await recurringPrice(api, { unitAmount: 1000 });
    const subs = [];
    for (let count = 0; count < 2; count++)
      subs.push(await subscribeOnClock(api, await customerOnClock(api, START), [{ price, quantity: 1 }], START));
    const patched = await Promise.all(subs.map((sub) => api.patch(`/subscriptions/${sub.id}`, { coupon: last.id })));
    expect(patched.map((answer) => answer.status).sort()).toEqual([200, 409]);
  });

  it('subscription.created of a subscription created with a coupon names its first invoice, as without one', async () => {
    const coupon = await createCoupon({ percent_off: 25, duration: 'forever' });
    const price = await recurringPrice(api, { unitAmount: 4000 });
    const owner = await customerOnClock(api, START);
    const plain = await subscribeOnClock(api, owner, [{ price, quantity: 1 }], START);
    const discounted = await subscribeOnClock(api, owner, [{ price, quantity: 1 }], START, { coupon: coupon.id });
    for (const subscription of [plain, discounted]) {
      const [invoice] = await subscriptionInvoices(api, subscription.id);
      expect(subscription.latest_invoice).toBe(invoice.id);
      const events = expectStatus(
        await api.get(`/events?type=subscription.created&object=${subscription.id}`),
        200,
        'GET /events',
      ).data;
      expect(events).toHaveLength(1);
      expect(events[0].data).toMatchObject({ id: subscription.id, latest_invoice: invoice.id });
    }
    expect((await subscriptionInvoices(api, discounted.id))[0]).toMatchObject({ total: 3000 });
  });

  it('a coupon PATCH racing a DELETE: redeemed only when it came first, else 409 with nothing redeemed', async () => {
    const coupon = await createCoupon({ percent_off: 10, duration: 'forever', max_redemptions: 1000 });
    const price = await recurringPrice(api, { unitAmount: 1000 });
    const { customer } = await customerWithCard(api, CARDS.succeeds);
    const answers: number[] = [];
    const after = <T>(ms: number, send: () => Promise<T>) =>
      new Promise((resolve) => setTimeout(resolve, ms)).then(send);
    // The PATCH leaves from 30 ms before to 57 ms after the DELETE, so some rounds land it while the
    // cancellation is being decided, the first ones before it and the last ones after it.
    for (let round = 0; round < 30; round++) {
      const subscription = await createSubscription(api, {
        customer: customer.id,
        items: [{ price, quantity: 1 }],
        trial_days: 0,
        start_date: unix(Date.now()),
      });
      const offset = (round - 10) * 3;
      const [patched, deleted] = await Promise.all([
        after(Math.max(offset, 0), () => api.patch(`/subscriptions/${subscription.id}`, { coupon: coupon.id })),
        after(Math.max(-offset, 0), () => api.delete(`/subscriptions/${subscription.id}`)),
      ]);
      expectStatus(deleted, 200, 'DELETE');
      const discounts = await stack.app.prisma.discount.count({ where: { subscriptionId: subscription.id } });
      const events = await eventsOf(stack.app.prisma, stack.accountId);
      const order = events
        .filter((event) => {
          const data = event.data as { id?: string; subscription?: string };
          return data.id === subscription.id || data.subscription === subscription.id;
        })
        .map((event) => event.type);
      if (patched.status === 200) {
        // Decided before the cancellation: answered live, its discount written before subscription.canceled.
        expect(patched.body).toMatchObject({ status: 'active', discount: { coupon: { id: coupon.id } } });
        expect(discounts).toBe(1);
        expect(order.indexOf('customer.discount.created')).toBeLessThan(order.indexOf('subscription.canceled'));
      } else {
        expect(patched.status).toBe(409);
        expect(patched.body.error.code).toMatch(/^subscription_(canceled|ended)$/);
        expect(discounts).toBe(0);
        expect(order).not.toContain('customer.discount.created');
      }
      answers.push(patched.status);
    }
    expect(answers).toContain(409);
    expect(expectStatus(await api.get(`/coupons/${coupon.id}`), 200).times_redeemed).toBe(
      answers.filter((status) => status === 200).length,
    );
  });

  it('DELETE stops new redemptions; a discount already made keeps running', async () => {
    const coupon = await createCoupon({ percent_off: 50, duration: 'forever' });
    const price = await recurringPrice(api, { unitAmount: 3000 });
    const { clock, customer, method } = await customerOnClock(api, START, { coupon: coupon.id });
    const subscription = await subscribeOnClock(api, { customer, method }, [{ price, quantity: 1 }], START);
    expectStatus(await api.delete(`/coupons/${coupon.id}`), 200);
    expect((await api.post('/customers', { name: 'Too late', coupon: coupon.id })).status).toBe(404);
    await advanceClock(api, clock.id, START + 32 * DAY_S);
    const invoices = await subscriptionInvoices(api, subscription.id);
    expect(invoices.map((invoice) => invoice.total)).toEqual([1500, 1500]);
    expect(expectStatus(await api.get(`/customers/${customer.id}`), 200).discount.coupon.id).toBe(coupon.id);
  });
});

describe('discounts on a subscription’s invoices', () => {
  it('amount_off in another currency: 400 on a subscription (nothing counted), nothing off a customer’s invoices', async () => {
    const euros = await createCoupon({ amount_off: 500, currency: 'EUR', duration: 'forever' });
    const price = await recurringPrice(api, { unitAmount: 2000 });
    const owner = await customerOnClock(api, START, { coupon: euros.id });
    const subscription = await subscribeOnClock(api, owner, [{ price, quantity: 1 }], START);
    expect((await subscriptionInvoices(api, subscription.id))[0]).toMatchObject({
      total: 2000,
      total_discount_amounts: [],
    });
    const refused = await api.patch(`/subscriptions/${subscription.id}`, { coupon: euros.id });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ param: 'coupon', code: 'coupon_currency_mismatch' });
    expect(expectStatus(await api.get(`/coupons/${euros.id}`), 200).times_redeemed).toBe(1);
    expect(expectStatus(await api.get(`/subscriptions/${subscription.id}`), 200).discount).toBeNull();
  });

  it('percent_off with tax: discount lines before tax, the preview equal to the invoice billed, repeating ends', async () => {
    const tax = await createTaxRate(api, 10, false);
    const price = await recurringPrice(api, { unitAmount: 1999 });
    const coupon = await createCoupon({
      name: 'Launch',
      percent_off: 33.33,
      duration: 'repeating',
      duration_in_months: 2,
    });
    const { clock, customer, method } = await customerOnClock(api, START);
    const subscription = await subscribeOnClock(
      api,
      { customer, method },
      [{ price, quantity: 3, tax: [tax.id] }],
      START,
      { coupon: coupon.id },
    );

    expect(subscription.discount).toMatchObject({
      coupon: { id: coupon.id },
      customer: customer.id,
      subscription: subscription.id,
      start: START,
      end: Date.UTC(2026, 2, 15, 10, 0, 0) / 1000,
    });
    // 3 x 1999 = 5997; 33.33% is 1998.8001: 1999 off (half up once); tax 10% of 5997 is 600, of -1999 is -200.
    const [first] = await subscriptionInvoices(api, subscription.id);
    expect(first).toMatchObject({
      status: 'paid',
      subtotal: 5997,
      tax: 400,
      total: 4398,
      amount_paid: 4398,
      total_discount_amounts: [{ amount: 1999, discount: subscription.discount.id }],
    });
    expect(first.lines[1]).toMatchObject({
      description: 'Launch (33.33% off)',
      amount: -1999,
      price: null,
      discount: subscription.discount.id,
      tax_rates: [tax.id],
      tax_amounts: [{ tax_rate: tax.id, amount: -200, taxable_amount: -1999, tax_behavior: 'exclusive' }],
    });

    // Its PDF shows the discount line and, after the subtotal, what the discount took off.
    const text = await pdfText(
      await renderInvoicePdf(await loadInvoiceDocument(stack.app.prisma, stack.accountId, first.id)),
    );
    expect(text).toContain('Launch (33.33% off)');
    expect(text).toMatch(/Subtotal\s*\$59\.97\s*Discount\s*-\$19\.99/);
    const hosted = await (await fetch(`${stack.app.baseUrl}${hostedPath(first)}`)).text();
    expect(hosted.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ')).toMatch(/Subtotal \$59\.97 Discount -\$19\.99/);

    // The preview of February equals the invoice February bills.
    const preview = expectStatus(await api.get(`/invoices/upcoming?subscription=${subscription.id}`), 200);
    expect(preview.total).toBe(4398);
    await advanceClock(api, clock.id, Date.UTC(2026, 1, 15, 11, 0, 0) / 1000);
    const february = (await subscriptionInvoices(api, subscription.id))[1];
    expect(billedShape(february)).toEqual(billedShape(preview));

    // March starts at the discount's end: no discount, and the preview says so first.
    const march = expectStatus(await api.get(`/invoices/upcoming?subscription=${subscription.id}`), 200);
    expect(march).toMatchObject({ total: 6597, total_discount_amounts: [] });
    await advanceClock(api, clock.id, Date.UTC(2026, 2, 15, 11, 0, 0) / 1000);
    const billed = (await subscriptionInvoices(api, subscription.id))[2];
    expect(billedShape(billed)).toEqual(billedShape(march));
    expect(billed.lines).toHaveLength(1);
  });

  it('once: the next invoice only; amount_off larger than the invoice takes it to zero; the subscription’s wins over the customer’s', async () => {
    const price = await recurringPrice(api, { unitAmount: 1200 });
    const customerCoupon = await createCoupon({ percent_off: 10, duration: 'forever' });
    const { clock, customer, method } = await customerOnClock(api, START, { coupon: customerCoupon.id });
    const subscription = await subscribeOnClock(api, { customer, method }, [{ price, quantity: 1 }], START);
    expect(subscription.discount).toBeNull();
    // The customer's 10% applies to the first invoice.
    expect((await subscriptionInvoices(api, subscription.id))[0]).toMatchObject({ total: 1080, amount_paid: 1080 });

    // A once coupon of 50.00 on the subscription wins over the customer's for the next invoice: 1200 -> 0.
    const once = await createCoupon({ name: 'Sorry', amount_off: 5000, currency: 'USD', duration: 'once' });
    const patched = expectStatus(await api.patch(`/subscriptions/${subscription.id}`, { coupon: once.id }), 200);
    expect(patched.discount).toMatchObject({ coupon: { id: once.id }, end: null });
    const preview = expectStatus(await api.get(`/invoices/upcoming?subscription=${subscription.id}`), 200);
    expect(preview).toMatchObject({ subtotal: 1200, total: 0, amount_due: 0 });
    await advanceClock(api, clock.id, Date.UTC(2026, 1, 15, 11, 0, 0) / 1000);
    const february = (await subscriptionInvoices(api, subscription.id))[1];
    expect(billedShape(february)).toEqual(billedShape(preview));
    expect(february).toMatchObject({ status: 'paid', total: 0, amount_paid: 0 });
    expect(february.lines[1]).toMatchObject({ description: 'Sorry ($50.00 off)', amount: -1200 });
    // Used up: the subscription shows none, and March takes the customer's 10% again.
    expect(expectStatus(await api.get(`/subscriptions/${subscription.id}`), 200).discount).toBeNull();
    await advanceClock(api, clock.id, Date.UTC(2026, 2, 15, 11, 0, 0) / 1000);
    expect((await subscriptionInvoices(api, subscription.id))[2]).toMatchObject({ total: 1080 });

    // Another account's coupon on PATCH and POST /subscriptions: 404 naming coupon.
    const theirs = await createCoupon({ percent_off: 50, duration: 'once' }, other);
    const refused = await api.patch(`/subscriptions/${subscription.id}`, { coupon: theirs.id });
    expect(refused.status).toBe(404);
    expect(refused.body.error.param).toBe('coupon');
    const creation = await api.post('/subscriptions', {
      customer: customer.id,
      items: [{ price: await recurringPrice(api), quantity: 1 }],
      trial_days: 0,
      start_date: Date.UTC(2026, 2, 15, 11, 0, 0) / 1000,
      default_payment_method: method.id,
      coupon: theirs.id,
    });
    expect(creation.status).toBe(404);
    expect(creation.body.error.param).toBe('coupon');
  });
});
