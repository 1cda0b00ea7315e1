import { registeredGateways } from '../../src/gateway-registrations';
import {
  createInvoice as createInvoiceService,
  createInvoiceForBilling,
  finalizeInvoice,
} from '../../src/invoices/invoice.service';
import { payInvoice } from '../../src/invoices/invoice-payment.service';
import { apiClient, createTestAccount, eventsOf, startTestApp, type ApiClient, type TestApp } from '../support/harness';
import { createProduct } from '../support/catalog';
import { recurringPrice, subscribeNow } from '../support/subscriptions';
import {
  addPaymentMethod,
  BANK_ACCOUNTS,
  bankBody,
  CARDS,
  cardBody,
  createCustomer,
  createInvoice,
  createTaxRate,
  customerWithCard,
  gatewayCharges,
  simpleInvoice,
  simulatorFor,
  wrappedGateways,
} from '../support/payments';

let app: TestApp;
let api: ApiClient;
let accountId: string;
let other: ApiClient;

beforeAll(async () => {
  app = await startTestApp();
  const account = await createTestAccount(app.prisma, { name: 'Acme Billing' });
  accountId = account.accountId;
  api = apiClient(app.baseUrl, account.apiKey);
  other = apiClient(app.baseUrl, (await createTestAccount(app.prisma, { name: 'Other' })).apiKey);
});

afterAll(() => app.close());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function invoiceEvents(invoiceId: string, account = accountId) {
  return (await eventsOf(app.prisma, account))
    .filter((event) => event.type.startsWith('invoice.') && (event.data as { id: string }).id === invoiceId)
    .map((event) => event.type);
}

describe('POST /invoices', () => {
  it('creates a draft with the spec fields, lines, totals, and invoice.created', async () => {
    const customer = await createCustomer(api);
    const response = await api.post('/invoices', {
      customer: customer.id,
      lines: [
        { description: 'Setup', amount: 5000 },
        { description: 'Hours', amount: 1250, quantity: 4 },
      ],
    });
    expect(response.status).toBe(201);
    const invoice = response.body;
    expect(invoice.id).toMatch(UUID);
    expect(invoice).toMatchObject({
      object: 'invoice',
      status: 'draft',
      number: null,
      customer: customer.id,
      customer_name: 'Grace Hopper',
      customer_email: 'grace@example.com',
      customer_phone: null,
      customer_address: null,
      account_name: 'Acme Billing',
      account_country: null,
      currency: 'USD',
      collection_method: 'charge_automatically',
      billing_reason: 'manual',
      subscription: null,
      subtotal: 10000,
      subtotal_excluding_tax: 10000,
      tax: 0,
      total: 10000,
      total_excluding_tax: 10000,
      total_taxes: null,
      total_tax_amounts: [],
      amount_due: 10000,
      amount_paid: 0,
      amount_remaining: 10000,
      amount_refunded: 0,
      attempt_count: 0,
      attempted: false,
      paid: false,
      payment_method: null,
      due_date: null,
      status_transitions: { finalized_at: null, paid_at: null, voided_at: null },
    });
    expect(invoice.period_start).toBe(invoice.created);
    expect(invoice.lines).toEqual([
      expect.objectContaining({
        object: 'line_item',
        description: 'Setup',
        amount: 5000,
        amount_excluding_tax: 5000,
        quantity: 1,
        unit_amount: 5000,
        price: null,
        tax_rates: [],
        tax_amounts: [],
        currency: 'USD',
        period: { start: invoice.period_start, end: invoice.period_end },
      }),
      expect.objectContaining({ description: 'Hours', amount: 5000, quantity: 4, unit_amount: 1250 }),
    ]);
    const [event] = (await eventsOf(app.prisma, accountId, 'invoice.created')).filter(
      (e) => (e.data as { id: string }).id === invoice.id,
    );
    expect(event!.data).toEqual(invoice);
    expect((await api.get(`/invoices/${invoice.id}`)).body).toEqual(invoice);
  });

  it('bills prices: unit_amount x quantity, the product name as description, currency from the price', async () => {
    const customer = await createCustomer(api);
    const product = await createProduct(api, { name: `Widget ${Date.now()}`, unit_amount: 1999 });
    const invoice = await createInvoice(api, {
      customer: customer.id,
      lines: [{ price: product.default_price, quantity: 3 }],
    });
    expect(invoice.lines[0]).toMatchObject({
      price: product.default_price,
      unit_amount: 1999,
      quantity: 3,
      amount: 5997,
      description: product.name,
    });
    expect(invoice).toMatchObject({ currency: 'USD', total: 5997 });
  });

  describe('tax (hand-checked)', () => {
    let customerId: string;
    let rate825: any;
    let rate20incl: any;
    let rate75incl: any;
    let rate5: any;
    let rate3: any;

    beforeAll(async () => {
      customerId = (await createCustomer(api)).id;
      rate825 = await createTaxRate(api, 8.25, false);
      rate20incl = await createTaxRate(api, 20, true);
      rate75incl = await createTaxRate(api, 7.5, true);
      rate5 = await createTaxRate(api, 5, false);
      rate3 = await createTaxRate(api, 3, false);
    });

    it('exclusive 8.25% on 3 x $10.00: 3000 + 247.5 -> 248 (half up) = 3248', async () => {
      const product = await createProduct(api, { unit_amount: 1000, tax_behavior: 'exclusive' });
      const invoice = await createInvoice(api, {
        customer: customerId,
        lines: [{ price: product.default_price, quantity: 3, tax: [rate825.id] }],
      });
      expect(invoice).toMatchObject({
        subtotal: 3000,
        subtotal_excluding_tax: 3000,
        tax: 248,
        total: 3248,
        total_excluding_tax: 3000,
        amount_due: 3248,
      });
      // docs/decisions.md §16: one rate, so total_taxes is that rate's sum, and total_tax_amounts its one entry.
      expect(invoice.total_taxes).toEqual({
        amount: 248,
        tax_behavior: 'exclusive',
        tax_rate: rate825.id,
        taxable_amount: 3000,
      });
      expect(invoice.total_tax_amounts).toEqual([
        { amount: 248, tax_behavior: 'exclusive', tax_rate: rate825.id, taxable_amount: 3000 },
      ]);
      expect(invoice.lines[0]).toMatchObject({ amount: 3000, amount_excluding_tax: 3000, tax_rates: [rate825.id] });
    });

    it('inclusive 20% in $12.00: 1200 / 1.2 = 1000 excluding tax, 200 tax, total stays 1200', async () => {
      const product = await createProduct(api, { unit_amount: 1200, tax_behavior: 'inclusive' });
      const invoice = await createInvoice(api, {
        customer: customerId,
        lines: [{ price: product.default_price, quantity: 1, tax: [rate20incl.id] }],
      });
      expect(invoice).toMatchObject({
        subtotal: 1200,
        subtotal_excluding_tax: 1000,
        tax: 200,
        total: 1200,
        total_excluding_tax: 1000,
        amount_due: 1200,
      });
      expect(invoice.total_taxes).toEqual({
        amount: 200,
        tax_behavior: 'inclusive',
        tax_rate: rate20incl.id,
        taxable_amount: 1000,
      });
    });

    it('inclusive 7.5% in $9.99: 999 / 1.075 = 929.30 -> 929, tax 70', async () => {
      const invoice = await createInvoice(api, {
        customer: customerId,
        lines: [{ description: 'Book', amount: 999, tax: [rate75incl.id] }],
      });
      expect(invoice).toMatchObject({
        subtotal: 999,
        subtotal_excluding_tax: 929,
        tax: 70,
        total: 999,
        total_excluding_tax: 929,
      });
    });

    it('two exclusive rates on one $10.00 line: 50 + 30, total 1080', async () => {
      const invoice = await createInvoice(api, {
        customer: customerId,
        lines: [{ description: 'Thing', amount: 1000, tax: [rate5.id, rate3.id] }],
      });
      expect(invoice).toMatchObject({ subtotal: 1000, tax: 80, total: 1080, total_excluding_tax: 1000 });
      expect(invoice.lines[0].tax_amounts).toEqual([
        { amount: 50, tax_behavior: 'exclusive', tax_rate: rate5.id, taxable_amount: 1000 },
        { amount: 30, tax_behavior: 'exclusive', tax_rate: rate3.id, taxable_amount: 1000 },
      ]);
    });

    it('mixed lines sum per rate: 3000 excl 8.25% + 1200 incl 20% + 2 x 500 excl 8.25%', async () => {
      const invoice = await createInvoice(api, {
        customer: customerId,
        lines: [
          { description: 'A', amount: 1000, quantity: 3, tax: [rate825.id] },
          { description: 'B', amount: 1200, tax: [rate20incl.id] },
          { description: 'C', amount: 500, quantity: 2, tax: [rate825.id] },
          { description: 'D (untaxed)', amount: 100 },
        ],
      });
      // A: 3000 + 248; B: 1000 + 200 inside 1200; C: 1000 + 82.5 -> 83; D: 100.
      expect(invoice).toMatchObject({
        subtotal: 5300,
        subtotal_excluding_tax: 5100,
        tax: 531,
        total: 5631,
        total_excluding_tax: 5100,
        amount_due: 5631,
      });
      expect(invoice.total_tax_amounts).toEqual([
        { amount: 331, tax_behavior: 'exclusive', tax_rate: rate825.id, taxable_amount: 4000 },
        { amount: 200, tax_behavior: 'inclusive', tax_rate: rate20incl.id, taxable_amount: 1000 },
      ]);
      // Several rates: the whole tax, over the taxed lines (A, B, C excluding tax; not D), named after the rate with the most tax.
      expect(invoice.total_taxes).toEqual({
        amount: 531,
        tax_behavior: 'exclusive',
        tax_rate: rate825.id,
        taxable_amount: 5000,
      });
      const [event] = (await eventsOf(app.prisma, accountId, 'invoice.created')).filter(
        (e) => (e.data as { id: string }).id === invoice.id,
      );
      expect(event!.data).toMatchObject({
        total_taxes: invoice.total_taxes,
        total_tax_amounts: invoice.total_tax_amounts,
      });
    });

    it("a price's tax_behavior decides: an exclusive 10% rate on a $10.00 tax-inclusive price is inside the $10.00", async () => {
      const rate10 = await createTaxRate(api, 10, false);
      const included = await createProduct(api, { unit_amount: 1000, tax_behavior: 'inclusive' });
      // 1000 / 1.1 = 909.09 -> 909 excluding tax, 91 tax, total stays 1000.
      const invoice = await createInvoice(api, {
        customer: customerId,
        lines: [{ price: included.default_price, quantity: 1, tax: [rate10.id] }],
      });
      expect(invoice).toMatchObject({
        subtotal: 1000,
        subtotal_excluding_tax: 909,
        tax: 91,
        total: 1000,
        total_excluding_tax: 909,
        amount_due: 1000,
      });
      expect(invoice.total_taxes).toEqual({
        amount: 91,
        tax_behavior: 'inclusive',
        tax_rate: rate10.id,
        taxable_amount: 909,
      });
      expect(invoice.total_tax_amounts).toEqual([invoice.total_taxes]);
      expect(invoice.lines[0]).toMatchObject({
        amount: 1000,
        amount_excluding_tax: 909,
        tax_amounts: invoice.total_tax_amounts,
      });
      // And the other way round: an inclusive 20% rate on a tax-exclusive $12.00 price goes on top.
      const excluded = await createProduct(api, { unit_amount: 1200, tax_behavior: 'exclusive' });
      const onTop = await createInvoice(api, {
        customer: customerId,
        lines: [{ price: excluded.default_price, quantity: 1, tax: [rate20incl.id] }],
      });
      expect(onTop).toMatchObject({
        subtotal: 1200,
        subtotal_excluding_tax: 1200,
        tax: 240,
        total: 1440,
        amount_due: 1440,
      });
      expect(onTop.total_taxes).toEqual({
        amount: 240,
        tax_behavior: 'exclusive',
        tax_rate: rate20incl.id,
        taxable_amount: 1200,
      });
      // Another account can use neither the price nor the rate.
      const otherCustomer = (await createCustomer(other)).id;
      const stolenPrice = await other.post('/invoices', {
        customer: otherCustomer,
        lines: [{ price: included.default_price }],
      });
      expect(stolenPrice.status).toBe(404);
      expect(stolenPrice.body.error.param).toBe('lines.0.price');
      const stolenRate = await other.post('/invoices', {
        customer: otherCustomer,
        lines: [{ description: 'x', amount: 1000, tax: [rate10.id] }],
      });
      expect(stolenRate.status).toBe(404);
      expect(stolenRate.body.error.param).toBe('lines.0.tax');
    });

    it('refuses an inactive tax rate with 400 naming the line', async () => {
      const inactive = (
        await api.post('/taxRates', { display_name: 'Old', percentage: 4, inclusive: false, active: false })
      ).body;
      const response = await api.post('/invoices', {
        customer: customerId,
        lines: [{ description: 'x', amount: 1, tax: [inactive.id] }],
      });
      expect(response.status).toBe(400);
      expect(response.body.error.param).toBe('lines.0.tax');
    });
  });

  it.each([
    [{ lines: [{ description: 'x', amount: 1 }] }, 'customer', 400, 'parameter_missing'],
    [{ customer: 'CUS', lines: [{ description: 'x', amount: 1 }] }, 'customer', 400, 'parameter_invalid'],
    [{ customer: '$customer', lines: [] }, 'lines', 400, 'parameter_invalid'],
    [{ customer: '$customer' }, 'lines', 400, 'parameter_missing'],
    [{ customer: '$customer', lines: [{ amount: 1 }] }, 'lines.0.description', 400, 'parameter_missing'],
    [{ customer: '$customer', lines: [{ description: 'x' }] }, 'lines.0.amount', 400, 'parameter_missing'],
    [{ customer: '$customer', lines: [{ description: 'x', amount: 1.5 }] }, 'lines.0.amount', 400, 'parameter_invalid'],
    [{ customer: '$customer', lines: [{ description: 'x', amount: -1 }] }, 'lines.0.amount', 400, 'parameter_invalid'],
    [
      { customer: '$customer', lines: [{ description: 'x', amount: 1, quantity: 0 }] },
      'lines.0.quantity',
      400,
      'parameter_invalid',
    ],
    [{ customer: '$customer', lines: [{ price: 'price_x', amount: 1 }] }, 'lines.0.amount', 400, 'parameter_invalid'],
    // Both shapes of a line at once, and neither (the document's oneOf).
    [
      { customer: '$customer', lines: [{ price: 'price_x', description: 'x', amount: 1 }] },
      'lines.0.price',
      400,
      'parameter_invalid',
    ],
    [{ customer: '$customer', lines: [{ quantity: 2 }] }, 'lines.0.price', 400, 'parameter_missing'],
    [
      { customer: '$customer', lines: [{ description: 'x', amount: 1, tax: ['txr_a', 'txr_a'] }] },
      'lines.0.tax',
      400,
      'parameter_invalid',
    ],
    [
      { customer: '$customer', lines: [{ description: 'x', amount: 1, color: 'red' }] },
      'lines.0.color',
      400,
      'parameter_unknown',
    ],
    [
      { customer: '$customer', lines: [{ description: 'x', amount: 1 }], collection_method: 'cash' },
      'collection_method',
      400,
      'parameter_invalid',
    ],
    [
      { customer: '$customer', lines: [{ description: 'x', amount: 1 }], due_date: -5 },
      'due_date',
      400,
      'parameter_invalid',
    ],
    [
      { customer: '$customer', lines: [{ description: 'x', amount: 1 }], status: 'paid' },
      'status',
      400,
      'parameter_unknown',
    ],
    [{ customer: 'cus_missing', lines: [{ description: 'x', amount: 1 }] }, 'customer', 404, 'resource_missing'],
    [
      {
        customer: '$customer',
        lines: [
          { description: 'x', amount: 1 },
          { price: 'price_missing', quantity: 1 },
        ],
      },
      'lines.1.price',
      404,
      'resource_missing',
    ],
    [
      { customer: '$customer', lines: [{ description: 'x', amount: 1, tax: ['txr_missing'] }] },
      'lines.0.tax',
      404,
      'resource_missing',
    ],
  ])('rejects %j naming %s (%d) and writes nothing', async (body, param, status, code) => {
    const customer = await createCustomer(api);
    const resolved = JSON.parse(JSON.stringify(body).replace('$customer', customer.id));
    const before = await app.prisma.invoice.count({ where: { accountId } });
    const response = await api.post('/invoices', resolved);
    expect(response.status).toBe(status);
    expect(response.body.error).toMatchObject({ param, code });
    expect(await app.prisma.invoice.count({ where: { accountId } })).toBe(before);
  });

  it("refuses another account's customer, price and tax rate with 404", async () => {
    const customer = await createCustomer(api);
    const foreignCustomer = await createCustomer(other);
    const foreignProduct = await createProduct(other);
    const foreignRate = await createTaxRate(other, 5, false);
    const cases: [object, string][] = [
      [{ customer: foreignCustomer.id, lines: [{ description: 'x', amount: 1 }] }, 'customer'],
      [{ customer: customer.id, lines: [{ price: foreignProduct.default_price, quantity: 1 }] }, 'lines.0.price'],
      [{ customer: customer.id, lines: [{ description: 'x', amount: 1, tax: [foreignRate.id] }] }, 'lines.0.tax'],
    ];
    for (const [body, param] of cases) {
      const response = await api.post('/invoices', body);
      expect(response.status).toBe(404);
      expect(response.body.error.param).toBe(param);
    }
  });
});

describe('finalize (POST /invoices/{id}/finalize)', () => {
  it('draft -> open with a per-account number, finalized_at and invoice.finalized; a second finalize is 409', async () => {
    const numbering = await createTestAccount(app.prisma);
    const numberingApi = apiClient(app.baseUrl, numbering.apiKey);
    const customer = await createCustomer(numberingApi);
    const invoice = await simpleInvoice(numberingApi, customer.id);
    const response = await numberingApi.post(`/invoices/${invoice.id}/finalize`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      status: 'open',
      number: 'INV-000001',
      amount_due: 2500,
      amount_remaining: 2500,
    });
    expect(response.body.status_transitions.finalized_at).toEqual(expect.any(Number));
    expect(await invoiceEvents(invoice.id, numbering.accountId)).toEqual(['invoice.created', 'invoice.finalized']);
    const again = await numberingApi.post(`/invoices/${invoice.id}/finalize`);
    expect(again.status).toBe(409);
    expect(again.body.error.type).toBe('conflict');
  });

  it('hands out distinct consecutive numbers under concurrent finalization', async () => {
    const numbering = await createTestAccount(app.prisma);
    const numberingApi = apiClient(app.baseUrl, numbering.apiKey);
    const customer = await createCustomer(numberingApi);
    const invoices = [];
    for (let i = 0; i < 8; i++) invoices.push(await simpleInvoice(numberingApi, customer.id));
    const results = await Promise.all(invoices.map((invoice) => numberingApi.post(`/invoices/${invoice.id}/finalize`)));
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(results.map((r) => r.body.number).sort()).toEqual(Array.from({ length: 8 }, (_, i) => `INV-00000${i + 1}`));
  });

  it("numbers a charged subscription's first invoice (numbered by its insert) and finalized invoices from one gapless counter, past six digits too", async () => {
    const numbering = await createTestAccount(app.prisma);
    const numberingApi = apiClient(app.baseUrl, numbering.apiKey);
    const { customer } = await customerWithCard(numberingApi, CARDS.succeeds);
    const price = await recurringPrice(numberingApi, { unitAmount: 900 });
    const drafts = [];
    for (let i = 0; i < 3; i++) drafts.push(await simpleInvoice(numberingApi, customer.id));
    const subscribe = () => subscribeNow(numberingApi, customer.id, [{ price, quantity: 1 }]);
    const finalized = drafts.map((draft) => numberingApi.post(`/invoices/${draft.id}/finalize`));
    const subscribed = [subscribe(), subscribe(), subscribe()];
    const answers = await Promise.all([...finalized, ...subscribed]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 201, 201, 201]);
    const numbers = async () =>
      (await app.prisma.invoice.findMany({ where: { accountId: numbering.accountId }, select: { number: true } }))
        .map((invoice) => invoice.number)
        .sort();
    expect(await numbers()).toEqual(Array.from({ length: 6 }, (_, i) => `INV-00000${i + 1}`));

    await app.prisma
      .$executeRaw`UPDATE invoice_number_counters SET last_number = 999999 WHERE account_id = ${numbering.accountId}`;
    expect((await subscribe()).status).toBe(201);
    const last = await simpleInvoice(numberingApi, customer.id);
    expect((await numberingApi.post(`/invoices/${last.id}/finalize`)).body.number).toBe('INV-1000001');
    expect((await numbers()).slice(6)).toEqual(['INV-1000000', 'INV-1000001']);
  });

  it('send_invoice invoices get no invoice.sent at finalization: it follows their email (test/emails/emails.test.ts)', async () => {
    const customer = await createCustomer(api);
    const invoice = await simpleInvoice(api, customer.id, 700, {
      collection_method: 'send_invoice',
      due_date: Math.floor(Date.now() / 1000) + 86400 * 30,
    });
    expect(invoice.due_date).toEqual(expect.any(Number));
    expect((await api.post(`/invoices/${invoice.id}/finalize`)).status).toBe(200);
    expect(await invoiceEvents(invoice.id)).toEqual(['invoice.created', 'invoice.finalized']);
  });
});

describe('PUT /invoices/{id} (pay)', () => {
  it('finalizes, charges the default card, and marks paid; events in order; prices become active; one succeeded transaction', async () => {
    const { customer, method } = await customerWithCard(api, CARDS.succeeds);
    const product = await createProduct(api, { unit_amount: 4200 });
    expect((await api.get(`/prices/${product.default_price}`)).body.active).toBe(false);
    const invoice = await createInvoice(api, {
      customer: customer.id,
      lines: [{ price: product.default_price, quantity: 1 }],
    });
    const response = await api.put(`/invoices/${invoice.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      status: 'paid',
      paid: true,
      amount_due: 4200,
      amount_paid: 4200,
      amount_remaining: 0,
      attempt_count: 1,
      attempted: true,
      payment_method: method.id,
      number: expect.stringMatching(/^INV-\d{6}$/),
    });
    expect(response.body.status_transitions.paid_at).toEqual(expect.any(Number));
    expect(response.body.status_transitions.finalized_at).toEqual(expect.any(Number));
    expect(await invoiceEvents(invoice.id)).toEqual([
      'invoice.created',
      'invoice.finalized',
      'invoice.payment_succeeded',
    ]);
    expect((await api.get(`/prices/${product.default_price}`)).body.active).toBe(true);
    const transactions = (await api.get(`/invoices/${invoice.id}/transactions`)).body.data;
    expect(transactions).toEqual([
      expect.objectContaining({
        type: 'payment',
        status: 'succeeded',
        amount: 4200,
        currency: 'USD',
        payment_method: method.id,
        attempt: 1,
        gateway_reference: expect.stringMatching(/^ch_/),
        failure_code: null,
      }),
    ]);
  });

  it.each([
    ['card_declined', CARDS.declined, cardBody],
    ['insufficient_funds', CARDS.insufficientFunds, cardBody],
    ['processing_error', CARDS.processingError, cardBody],
  ])(
    'a decline (%s, %s) leaves the invoice open, counts the attempt, writes invoice.payment_failed',
    async (code, number, body) => {
      const customer = await createCustomer(api);
      await addPaymentMethod(api, customer.id, body(number));
      const invoice = await simpleInvoice(api, customer.id, 1500);
      const response = await api.put(`/invoices/${invoice.id}`);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        status: 'open',
        paid: false,
        attempt_count: 1,
        attempted: true,
        amount_paid: 0,
        amount_remaining: 1500,
      });
      expect(response.body.status_transitions.paid_at).toBeNull();
      expect(await invoiceEvents(invoice.id)).toEqual([
        'invoice.created',
        'invoice.finalized',
        'invoice.payment_failed',
      ]);
      const [transaction] = (await api.get(`/invoices/${invoice.id}/transactions`)).body.data;
      expect(transaction).toMatchObject({
        type: 'payment',
        status: 'failed',
        amount: 1500,
        failure_code: code,
        failure_message: expect.any(String),
      });

      // Retried with a good method named in the body: the second attempt pays.
      const good = await addPaymentMethod(
        api,
        customer.id,
        body(number.length === 12 ? BANK_ACCOUNTS.succeeds : CARDS.succeeds),
      );
      const retried = await api.put(`/invoices/${invoice.id}`, { payment_method: good.id });
      expect(retried.body).toMatchObject({ status: 'paid', attempt_count: 2, payment_method: good.id });
      expect(await invoiceEvents(invoice.id)).toEqual([
        'invoice.created',
        'invoice.finalized',
        'invoice.payment_failed',
        'invoice.payment_succeeded',
      ]);
      const attempts = (await api.get(`/invoices/${invoice.id}/transactions`)).body.data;
      expect(attempts.map((t: { attempt: number; status: string }) => [t.attempt, t.status])).toEqual([
        [2, 'succeeded'],
        [1, 'failed'],
      ]);
    },
  );

  it('a bank account is debited: the invoice waits for its bank, open and unpaid (test/payments/bank-debits.test.ts)', async () => {
    const customer = await createCustomer(api);
    await addPaymentMethod(api, customer.id, bankBody(BANK_ACCOUNTS.succeeds));
    const invoice = await simpleInvoice(api, customer.id, 990);
    expect((await api.put(`/invoices/${invoice.id}`)).body).toMatchObject({ status: 'open', attempt_count: 1 });
    const [transaction] = (await api.get(`/invoices/${invoice.id}/transactions`)).body.data;
    expect(transaction).toMatchObject({ status: 'pending', amount: 990 });
  });

  it('a US bank account pays USD only: an EUR invoice (or plan) refuses it with 400 naming payment_method; a card pays EUR', async () => {
    const customer = await createCustomer(api);
    const bank = await addPaymentMethod(api, customer.id, bankBody(BANK_ACCOUNTS.succeeds));
    const card = await addPaymentMethod(api, customer.id, cardBody(CARDS.succeeds));
    const invoice = await simpleInvoice(api, customer.id, 990, { currency: 'EUR' });
    const before = await gatewayCharges(app.prisma, accountId);
    // The default (the bank account, attached first) and the bank account named: refused, nothing changes.
    for (const body of [{}, { payment_method: bank.id }]) {
      const refused = await api.put(`/invoices/${invoice.id}`, body);
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({
        param: 'payment_method',
        code: 'payment_method_currency_unsupported',
      });
    }
    expect((await api.get(`/invoices/${invoice.id}`)).body).toMatchObject({
      status: 'draft',
      attempt_count: 0,
      number: null,
    });
    expect(await gatewayCharges(app.prisma, accountId)).toBe(before);
    // Another account can neither pay it nor use the card.
    expect((await other.put(`/invoices/${invoice.id}`, { payment_method: card.id })).status).toBe(404);
    const paid = await api.put(`/invoices/${invoice.id}`, { payment_method: card.id });
    expect(paid.body).toMatchObject({ status: 'paid', currency: 'EUR', payment_method: card.id });

    // A payment plan in EUR takes no bank account either.
    await app.prisma.account.update({ where: { id: accountId }, data: { paymentPlansEnabled: true } });
    const plan = await api.post('/payment-plans', {
      customer: customer.id,
      total_amount: 3000,
      currency: 'EUR',
      installments_count: 3,
      interval: 'month',
      payment_method: bank.id,
    });
    expect(plan.status).toBe(400);
    expect(plan.body.error).toMatchObject({ param: 'payment_method', code: 'payment_method_currency_unsupported' });
    await app.prisma.account.update({ where: { id: accountId }, data: { paymentPlansEnabled: false } });

    // Last line of defence: the gateway declines a bank debit in EUR.
    const row = await app.prisma.paymentMethod.findUniqueOrThrow({ where: { id: bank.id } });
    const { toGatewayPaymentMethod } = await import('../../src/payments/payment-method.service');
    const declined = await (
      await simulatorFor(app.prisma, accountId)
    ).charge({
      amount: 990,
      currency: 'EUR',
      paymentMethod: toGatewayPaymentMethod(row),
      idempotencyKey: `eur-${bank.id}`,
    });
    expect(declined).toMatchObject({ status: 'failed', failureCode: 'currency_not_supported' });
  });

  it('pays a zero invoice without charging', async () => {
    const customer = await createCustomer(api);
    const invoice = await simpleInvoice(api, customer.id, 0);
    const before = await gatewayCharges(app.prisma, accountId);
    const response = await api.put(`/invoices/${invoice.id}`);
    expect(response.body).toMatchObject({ status: 'paid', amount_due: 0, amount_paid: 0, attempt_count: 0 });
    expect(await gatewayCharges(app.prisma, accountId)).toBe(before);
    expect(await invoiceEvents(invoice.id)).toEqual([
      'invoice.created',
      'invoice.finalized',
      'invoice.payment_succeeded',
    ]);
  });

  it('without a payment method on file answers 400 naming payment_method and leaves the draft untouched', async () => {
    const customer = await createCustomer(api);
    const invoice = await simpleInvoice(api, customer.id);
    const response = await api.put(`/invoices/${invoice.id}`);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ param: 'payment_method', code: 'payment_method_missing' });
    expect((await api.get(`/invoices/${invoice.id}`)).body).toMatchObject({
      status: 'draft',
      number: null,
      attempt_count: 0,
    });
    expect(await invoiceEvents(invoice.id)).toEqual(['invoice.created']);
  });

  it("refuses a method that is not the customer's (400), unknown or foreign (404)", async () => {
    const { customer } = await customerWithCard(api);
    const { method: someoneElses } = await customerWithCard(api);
    const foreign = (await other.post('/payment-methods', cardBody(CARDS.succeeds))).body;
    const invoice = await simpleInvoice(api, customer.id);
    const notHis = await api.put(`/invoices/${invoice.id}`, { payment_method: someoneElses.id });
    expect(notHis.status).toBe(400);
    expect(notHis.body.error).toMatchObject({ param: 'payment_method', code: 'payment_method_not_attached' });
    for (const id of ['pm_missing', foreign.id]) {
      const response = await api.put(`/invoices/${invoice.id}`, { payment_method: id });
      expect(response.status).toBe(404);
      expect(response.body.error.param).toBe('payment_method');
    }
    expect((await api.put(`/invoices/${invoice.id}`, { payment_method: 'card' })).body.error.param).toBe(
      'payment_method',
    );
    expect((await api.put(`/invoices/${invoice.id}`, { amount: 5 })).body.error.param).toBe('amount');
  });

  it('a crash between the charge and the commit never charges twice: the next call finishes the pending attempt', async () => {
    const { customer } = await customerWithCard(api);
    const invoice = await simpleInvoice(api, customer.id, 3100);
    // The gateway charges, then the answer is lost (as if the process died or the network dropped).
    const losesAnswer = wrappedGateways(app.prisma, (real) => ({
      charge: async (request) => {
        await real.charge(request);
        throw new Error('connection reset');
      },
    }));
    const before = await gatewayCharges(app.prisma, accountId);
    await expect(payInvoice(app.prisma, losesAnswer, accountId, invoice.id)).rejects.toMatchObject({
      status: 502,
      code: 'gateway_unavailable',
    });
    expect(await gatewayCharges(app.prisma, accountId)).toBe(before + 1);
    const pending = (await api.get(`/invoices/${invoice.id}/transactions`)).body.data;
    expect(pending).toEqual([expect.objectContaining({ status: 'pending', amount: 3100 })]);
    expect((await api.get('/balance')).body.pending).toEqual(
      expect.arrayContaining([expect.objectContaining({ currency: 'USD' })]),
    );
    // Voiding is refused while the outcome is unknown.
    expect((await api.delete(`/invoices/${invoice.id}`)).status).toBe(409);

    const paid = await api.put(`/invoices/${invoice.id}`);
    expect(paid.body).toMatchObject({ status: 'paid', attempt_count: 1, amount_paid: 3100 });
    expect(await gatewayCharges(app.prisma, accountId)).toBe(before + 1);
    const settled = (await api.get(`/invoices/${invoice.id}/transactions`)).body.data;
    expect(settled).toEqual([expect.objectContaining({ id: pending[0].id, status: 'succeeded' })]);
    expect(await invoiceEvents(invoice.id)).toEqual([
      'invoice.created',
      'invoice.finalized',
      'invoice.payment_succeeded',
    ]);
  });

  it('concurrent PUTs on one invoice charge once', async () => {
    const { customer } = await customerWithCard(api);
    const invoice = await simpleInvoice(api, customer.id, 2200);
    const before = await gatewayCharges(app.prisma, accountId);
    const responses = await Promise.all(Array.from({ length: 5 }, () => api.put(`/invoices/${invoice.id}`)));
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    expect(await gatewayCharges(app.prisma, accountId)).toBe(before + 1);
    expect((await api.get(`/invoices/${invoice.id}`)).body).toMatchObject({ status: 'paid', attempt_count: 1 });
    expect((await invoiceEvents(invoice.id)).filter((t) => t === 'invoice.payment_succeeded')).toHaveLength(1);
  });
});

describe('service functions for the subscription workflow', () => {
  it('createInvoice with an idempotency key, finalizeInvoice allowFinalized, payInvoice with an attempt key: safe to call twice', async () => {
    const { customer } = await customerWithCard(api);
    const gateway = registeredGateways(app.prisma);
    const input = { customer: customer.id, lines: [{ description: 'Month', amount: 1000 }] };
    const opts = {
      subscriptionId: 'sub_test123',
      billingReason: 'subscription_cycle',
      periodStart: 1_800_000_000,
      periodEnd: 1_802_592_000,
      idempotencyKey: `wf-${Date.now()}`,
    };
    const first = await createInvoiceService(app.prisma, accountId, input, opts);
    const second = await createInvoiceService(app.prisma, accountId, input, opts);
    expect(second.id).toBe(first.id);
    expect(first).toMatchObject({
      subscription: 'sub_test123',
      billing_reason: 'subscription_cycle',
      period_start: 1_800_000_000,
      period_end: 1_802_592_000,
    });
    expect(first.lines[0]!.period).toEqual({ start: 1_800_000_000, end: 1_802_592_000 });

    await finalizeInvoice(app.prisma, accountId, first.id, { allowFinalized: true });
    const refinalized = await finalizeInvoice(app.prisma, accountId, first.id, { allowFinalized: true });
    expect(refinalized.status).toBe('open');

    const before = await gatewayCharges(app.prisma, accountId);
    const paid = await payInvoice(app.prisma, gateway, accountId, first.id, {
      attemptKey: 'subscription:sub_test123:renewal:1',
    });
    const again = await payInvoice(app.prisma, gateway, accountId, first.id, {
      attemptKey: 'subscription:sub_test123:renewal:1',
    });
    expect(paid.status).toBe('paid');
    expect(again).toEqual(paid);
    expect(await gatewayCharges(app.prisma, accountId)).toBe(before + 1);
    expect((await api.get(`/invoices?subscription=sub_test123`)).body.data.map((i: { id: string }) => i.id)).toEqual([
      first.id,
    ]);
  });

  it("createInvoiceForBilling: typed lines, each with the invoice's period unless it has its own (a proration's)", async () => {
    const { customer } = await customerWithCard(api);
    const invoice = await app.prisma.$transaction((tx) =>
      createInvoiceForBilling(tx, accountId, {
        customerId: customer.id,
        collectionMethod: 'charge_automatically',
        subscriptionId: 'sub_test456',
        billingReason: 'subscription_update',
        period: { start: 1_800_000_000, end: 1_802_592_000 },
        lines: [
          { description: 'Month', unitAmount: 1000, quantity: 1, taxRateIds: [] },
          {
            description: 'Unused time',
            unitAmount: 400,
            quantity: 2,
            taxRateIds: [],
            period: { start: 1_801_000_000, end: 1_802_592_000 },
          },
        ],
      }),
    );
    expect(invoice).toMatchObject({
      status: 'draft',
      subscription: 'sub_test456',
      billing_reason: 'subscription_update',
      currency: customer.currency ?? 'USD',
      period_start: 1_800_000_000,
      period_end: 1_802_592_000,
      total: 1800,
    });
    expect(invoice.lines.map((line) => [line.description, line.amount, line.period])).toEqual([
      ['Month', 1000, { start: 1_800_000_000, end: 1_802_592_000 }],
      ['Unused time', 800, { start: 1_801_000_000, end: 1_802_592_000 }],
    ]);
  });

  it('rejects bad input to createInvoice like the API does', async () => {
    await expect(createInvoiceService(app.prisma, accountId, { customer: 'cus_x', lines: [] })).rejects.toMatchObject({
      status: 400,
      param: 'lines',
    });
  });
});

describe('DELETE /invoices/{id} (void) and forbidden transitions', () => {
  it('voids a draft and an open invoice (voided_at, invoice.deleted); everything after is 409', async () => {
    const { customer } = await customerWithCard(api);
    const draft = await simpleInvoice(api, customer.id);
    const open = await simpleInvoice(api, customer.id);
    await api.post(`/invoices/${open.id}/finalize`);

    for (const invoice of [draft, open]) {
      const voided = await api.delete(`/invoices/${invoice.id}`);
      expect(voided.status).toBe(200);
      expect(voided.body.status).toBe('void');
      expect(voided.body.status_transitions.voided_at).toEqual(expect.any(Number));
      expect((await invoiceEvents(invoice.id)).at(-1)).toBe('invoice.deleted');
      const before = await gatewayCharges(app.prisma, accountId);
      const attempts: [string, Promise<{ status: number; body: any }>][] = [
        ['pay', api.put(`/invoices/${invoice.id}`)],
        ['void', api.delete(`/invoices/${invoice.id}`)],
        ['finalize', api.post(`/invoices/${invoice.id}/finalize`)],
        ['refund', api.post(`/invoices/${invoice.id}/refund`)],
      ];
      for (const [label, request] of attempts) {
        const response = await request;
        expect([label, response.status, response.body.error?.type]).toEqual([label, 409, 'conflict']);
      }
      expect(await gatewayCharges(app.prisma, accountId)).toBe(before);
    }
  });

  it('a paid invoice cannot be paid, voided or finalized (409)', async () => {
    const { customer } = await customerWithCard(api);
    const invoice = await simpleInvoice(api, customer.id);
    expect((await api.put(`/invoices/${invoice.id}`)).body.status).toBe('paid');
    for (const response of [
      await api.put(`/invoices/${invoice.id}`),
      await api.delete(`/invoices/${invoice.id}`),
      await api.post(`/invoices/${invoice.id}/finalize`),
    ]) {
      expect(response.status).toBe(409);
    }
    expect((await api.get(`/invoices/${invoice.id}`)).body.status).toBe('paid');
  });

  it('an open invoice with a declined attempt can still be voided', async () => {
    const { customer } = await customerWithCard(api, CARDS.declined);
    const invoice = await simpleInvoice(api, customer.id);
    expect((await api.put(`/invoices/${invoice.id}`)).body.status).toBe('open');
    expect((await api.delete(`/invoices/${invoice.id}`)).body.status).toBe('void');
    expect(await invoiceEvents(invoice.id)).toEqual([
      'invoice.created',
      'invoice.finalized',
      'invoice.payment_failed',
      'invoice.deleted',
    ]);
  });
});

describe('POST /invoices/{id}/refund', () => {
  it('refunds partly, then the rest; never more than what is left', async () => {
    const { customer } = await customerWithCard(api);
    const invoice = await simpleInvoice(api, customer.id, 5000);
    await api.put(`/invoices/${invoice.id}`);

    const partial = await api.post(`/invoices/${invoice.id}/refund`, { amount: 1500 });
    expect(partial.status).toBe(201);
    expect(partial.body).toMatchObject({
      object: 'transaction',
      type: 'refund',
      status: 'succeeded',
      amount: -1500,
      invoice: invoice.id,
      customer: customer.id,
      gateway_reference: expect.stringMatching(/^re_/),
    });
    expect((await api.get(`/invoices/${invoice.id}`)).body).toMatchObject({ status: 'paid', amount_refunded: 1500 });

    const tooMuch = await api.post(`/invoices/${invoice.id}/refund`, { amount: 3501 });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.error.param).toBe('amount');

    const rest = await api.post(`/invoices/${invoice.id}/refund`);
    expect(rest.body).toMatchObject({ amount: -3500, status: 'succeeded' });
    expect((await api.get(`/invoices/${invoice.id}`)).body.amount_refunded).toBe(5000);
    expect((await api.post(`/invoices/${invoice.id}/refund`)).status).toBe(409);
    const payment = (await api.get(`/transactions?invoice=${invoice.id}&type=payment`)).body.data[0];
    expect(partial.body.source_transaction).toBe(payment.id);
    const refunds = await app.prisma.gatewayCharge.findMany({
      where: { accountId, kind: 'refund', chargeId: payment.gateway_reference },
    });
    expect(refunds.map((r) => Number(r.amount)).sort()).toEqual([1500, 3500]);
  });

  it('refuses draft and open invoices (409) and bad amounts (400)', async () => {
    const { customer } = await customerWithCard(api, CARDS.declined);
    const invoice = await simpleInvoice(api, customer.id);
    expect((await api.post(`/invoices/${invoice.id}/refund`)).status).toBe(409);
    await api.put(`/invoices/${invoice.id}`);
    expect((await api.post(`/invoices/${invoice.id}/refund`)).status).toBe(409);
    for (const amount of [0, -5, 1.5, '10']) {
      const response = await api.post(`/invoices/${invoice.id}/refund`, { amount });
      expect(response.status).toBe(400);
      expect(response.body.error.param).toBe('amount');
    }
  });
});

describe('GET /invoices', () => {
  let listApi: ApiClient;
  let customers: string[];
  let ids: string[];

  beforeAll(async () => {
    const account = await createTestAccount(app.prisma);
    listApi = apiClient(app.baseUrl, account.apiKey);
    customers = [
      (await customerWithCard(listApi)).customer.id,
      (await customerWithCard(listApi, CARDS.declined)).customer.id,
    ];
    ids = [];
    for (let i = 0; i < 5; i++) ids.push((await simpleInvoice(listApi, customers[i % 2]!, 100 * (i + 1))).id);
    await listApi.put(`/invoices/${ids[0]}`); // paid
    await listApi.put(`/invoices/${ids[1]}`); // open (declined)
    await listApi.delete(`/invoices/${ids[2]}`); // void
  });

  it('pages newest first with {data, meta}', async () => {
    const page = await listApi.get('/invoices?take=2');
    expect(page.body.meta).toEqual({ page: 1, take: 2, itemsTotal: 5, pagesTotal: 3 });
    expect(page.body.data.map((i: { id: string }) => i.id)).toEqual([ids[4], ids[3]]);
    expect(page.body.data[0].lines).toHaveLength(1);
  });

  it('filters by status, customer, subscription and created range', async () => {
    const idsOf = async (query: string) =>
      (await listApi.get(`/invoices?${query}`)).body.data.map((i: { id: string }) => i.id);
    expect(await idsOf('status=paid')).toEqual([ids[0]]);
    expect(await idsOf('status=open')).toEqual([ids[1]]);
    expect(await idsOf('status=void')).toEqual([ids[2]]);
    expect(await idsOf('status=draft')).toEqual([ids[4], ids[3]]);
    expect(await idsOf(`customer=${customers[1]}`)).toEqual([ids[3], ids[1]]);
    expect(await idsOf('subscription=sub_none')).toEqual([]);
    const created = (await listApi.get(`/invoices/${ids[0]}`)).body.created;
    expect((await idsOf(`created_gte=${created}`)).length).toBe(5);
    expect(await idsOf(`created_lt=${created}`)).toEqual([]);
    expect(await idsOf(`created_gt=${created + 3600}`)).toEqual([]);
    // The last second of the year 9999, the largest bound accepted, on each side.
    expect(await idsOf('created_gt=253402300799')).toEqual([]);
    expect(await idsOf('created_gt=253402300799&page=5016149554984399')).toEqual([]);
    expect((await idsOf('created_lte=253402300799')).length).toBe(5);
    for (const [query, param] of [
      ['status=late', 'status'],
      ['created_gte=soon', 'created_gte'],
      ['take=0', 'take'],
      ['color=red', 'color'],
    ]) {
      const response = await listApi.get(`/invoices?${query}`);
      expect(response.status).toBe(400);
      expect(response.body.error.param).toBe(param);
    }
  });

  it('answers 404 on every invoice endpoint for another account, and for a malformed id', async () => {
    const id = ids[0]!;
    const transaction = (await listApi.get(`/invoices/${id}/transactions`)).body.data[0].id;
    const checks: [string, Promise<{ status: number; body: any }>][] = [
      ['GET', other.get(`/invoices/${id}`)],
      ['PUT', other.put(`/invoices/${id}`)],
      ['DELETE', other.delete(`/invoices/${id}`)],
      ['finalize', other.post(`/invoices/${ids[4]}/finalize`)],
      ['refund', other.post(`/invoices/${id}/refund`)],
      ['transactions', other.get(`/invoices/${id}/transactions`)],
      ['transaction', other.get(`/invoices/${id}/transactions/${transaction}`)],
      ['unknown', listApi.get('/invoices/00000000-0000-4000-8000-000000000000')],
    ];
    for (const [label, request] of checks) {
      const response = await request;
      expect([label, response.status, response.body.error?.type]).toEqual([label, 404, 'not_found']);
    }
    expect((await other.get('/invoices')).body.data.map((i: { id: string }) => i.id)).not.toContain(id);
    expect((await listApi.get('/invoices/not-a-uuid')).status).toBe(404);
    // Nothing changed on the owner's side.
    expect((await listApi.get(`/invoices/${ids[4]}`)).body.status).toBe('draft');
    expect((await listApi.get(`/invoices/${id}`)).body.amount_refunded).toBe(0);
  });
});
