import { apiClient, createTestAccount, startWorkerApp, type ApiClient, type WorkerApp } from '../support/harness';
import { createTaxRate } from '../support/payments';
import { customerOnClock, subscribeOnClock, subscriptionInvoices } from '../support/clocks';
import { expectStatus, recurringPrice } from '../support/subscriptions';

// Credit notes by line on an invoice with a discount (docs/decisions.md §22, "By line or by amount"): a line
// is credited at what the customer was billed for it, its total with tax after its share of the discount.
// Discounts are a subscription's (docs/decisions.md §37), so the invoice is a subscription's first, on a
// test clock over the suite's Temporal dev server.

const START = Date.UTC(2026, 4, 4, 9, 0, 0) / 1000;

let stack: WorkerApp;
let api: ApiClient;
let other: ApiClient;

beforeAll(async () => {
  stack = await startWorkerApp('credit-note-discounts');
  api = stack.api;
  other = apiClient(stack.app.baseUrl, (await createTestAccount(stack.app.prisma, { name: 'Other' })).apiKey);
}, 60_000);

afterAll(() => stack?.close());

const credit = (body: Record<string, unknown>, client = api) =>
  client.post('/credit-notes', { reason: 'order_change', ...body });

it("credits a whole line at its discounted share, a quantity as that share's part, and the rest of a line as what is left", async () => {
  const tax = await createTaxRate(api, 8.25, false);
  const coupon = expectStatus(await api.post('/coupons', { percent_off: 15, duration: 'forever' }), 201);
  const [seat, extra] = [
    await recurringPrice(api, { unitAmount: 2165 }),
    await recurringPrice(api, { unitAmount: 500 }),
  ];
  const owner = await customerOnClock(api, START);
  const subscription = await subscribeOnClock(
    api,
    owner,
    [
      { price: seat, quantity: 1, tax: [tax.id] },
      { price: extra, quantity: 2, tax: [tax.id] },
    ],
    START,
    { coupon: coupon.id },
  );
  const [invoice] = await subscriptionInvoices(api, subscription.id);
  // 2165 + 179 tax and 1000 + 83 tax; 15% of 3165 is 475 off (half up), with -39 tax: 2913 paid.
  expect(invoice.lines.map((line: any) => line.amount)).toEqual([2165, 1000, -475]);
  expect(invoice).toMatchObject({ status: 'paid', total: 2913, amount_paid: 2913 });
  const [seatLine, extraLine] = invoice.lines;
  // The discount line's 514 with tax split over the lines by amount (2165 : 1000), largest remainder:
  // 352 and 162. The seat was billed 2344 - 352 = 1992, the extras 1083 - 162 = 921.

  const whole = expectStatus(
    await credit({ invoice: invoice.id, lines: [{ invoice_line: seatLine.id }], refund_to: 'customer_balance' }),
    201,
  );
  expect(whole).toMatchObject({ amount: 1992, lines: [{ invoice_line: seatLine.id, amount: 1992, quantity: null }] });
  const again = await credit({
    invoice: invoice.id,
    lines: [{ invoice_line: seatLine.id, amount: 1 }],
    refund_to: 'outside',
  });
  expect(again.status).toBe(400);
  expect(again.body.error).toMatchObject({ code: 'amount_exceeds_creditable', param: 'lines.0.amount' });

  // One of the two extras: half of 921, rounded half up.
  const one = expectStatus(
    await credit({ invoice: invoice.id, lines: [{ invoice_line: extraLine.id, quantity: 1 }], refund_to: 'card' }),
    201,
  );
  expect(one.amount).toBe(461);
  // The rest of the line: 921 - 461.
  const rest = expectStatus(
    await credit({ invoice: invoice.id, lines: [{ invoice_line: extraLine.id }], refund_to: 'outside' }),
    201,
  );
  expect(rest.amount).toBe(460);

  // Everything the customer paid has been credited, and nothing more.
  expect(expectStatus(await api.get(`/invoices/${invoice.id}`), 200)).toMatchObject({
    post_payment_credit_notes_amount: 2913,
    amount_refunded: 461,
  });
  const more = await credit({ invoice: invoice.id, amount: 1, refund_to: 'outside' });
  expect(more.status).toBe(400);
  expect(more.body.error.code).toBe('amount_exceeds_creditable');
  // The discount line itself is no line to credit.
  const discountLine = invoice.lines[2];
  const onDiscount = await credit({
    invoice: invoice.id,
    lines: [{ invoice_line: discountLine.id }],
    refund_to: 'outside',
  });
  expect(onDiscount.status).toBe(400);
  expect(onDiscount.body.error.param).toBe('lines.0.invoice_line');
  // Another account cannot credit it.
  const foreign = await credit(
    { invoice: invoice.id, lines: [{ invoice_line: seatLine.id }], refund_to: 'outside' },
    other,
  );
  expect(foreign.status).toBe(404);
});
