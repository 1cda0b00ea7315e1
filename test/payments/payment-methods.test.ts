import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { createApp } from '../../src/app';
import {
  apiClient,
  createTestAccount,
  eventsOf,
  type ApiClient,
  type TestApp,
  startTwoAccountApp,
} from '../support/harness';
import {
  addPaymentMethod,
  BANK_ACCOUNTS,
  bankBody,
  CARDS,
  cardBody,
  createCustomer,
  setGatewayKind,
  simpleInvoice,
  TEST_ROUTING_NUMBER,
} from '../support/payments';

let app: TestApp;
let api: ApiClient;
let accountId: string;
let other: ApiClient;

beforeAll(async () => {
  ({ app, api, accountId, other } = await startTwoAccountApp());
});

afterAll(() => app.close());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('POST /payment-methods (cards)', () => {
  it('answers the spec object: brand, last4, fingerprint, walletType null, livemode false, never the number or CVC', async () => {
    const response = await api.post(
      '/payment-methods',
      cardBody(CARDS.succeeds, {
        billing_details: { name: 'Ada', email: 'ada@example.com', address: { city: 'London', country: 'gb' } },
      }),
    );
    expect(response.status).toBe(201);
    const method = response.body;
    expect(method).toEqual({
      id: expect.stringMatching(/^pm_[a-zA-Z0-9]+$/),
      object: 'payment_method',
      type: 'card',
      card: {
        brand: 'visa',
        last4: '4242',
        walletType: null,
        exp_month: 12,
        exp_year: expect.any(Number),
        fingerprint: expect.any(String),
      },
      allow_redisplay: 'unspecified',
      billing_details: {
        address: { city: 'London', country: 'GB', line1: null, line2: null, postal_code: null, state: null },
        email: 'ada@example.com',
        name: 'Ada',
        phone: null,
      },
      created: expect.any(Number),
      updated_ms: expect.any(Number),
      customer: null,
      livemode: false,
      metadata: {},
    });
    expect(method.us_bank_account).toBeUndefined();
    expect(JSON.stringify(method)).not.toContain(CARDS.succeeds);
    expect(JSON.stringify(method)).not.toContain('"cvc"');
    expect(Math.abs(method.created - Date.now() / 1000)).toBeLessThan(60);
  });

  it.each([
    ['4242424242424242', 'visa'],
    ['5555555555554444', 'mastercard'],
    ['2223003122003222', 'mastercard'],
    ['378282246310005', 'amex'],
    ['6011111111111117', 'discover'],
    ['3056930009020004', 'diners'],
    ['3566002020360505', 'jcb'],
    ['6200000000000005', 'unionpay'],
  ])('detects the brand of %s as %s', async (number, brand) => {
    const response = await api.post(
      '/payment-methods',
      cardBody(number, { card: { number, exp_month: 1, exp_year: 2099, cvc: '1234' } }),
    );
    expect(response.status).toBe(201);
    expect(response.body.card).toMatchObject({ brand, last4: number.slice(-4) });
  });

  it('gives the same card the same fingerprint in one account and a different one in another', async () => {
    const first = (await api.post('/payment-methods', cardBody(CARDS.succeeds))).body;
    const second = (await api.post('/payment-methods', cardBody('4242 4242 4242 4242'))).body;
    const otherCard = (await api.post('/payment-methods', cardBody(CARDS.declined))).body;
    const otherAccount = (await other.post('/payment-methods', cardBody(CARDS.succeeds))).body;
    expect(second.card.fingerprint).toBe(first.card.fingerprint);
    expect(otherCard.card.fingerprint).not.toBe(first.card.fingerprint);
    expect(otherAccount.card.fingerprint).not.toBe(first.card.fingerprint);
  });

  const thisYear = new Date().getUTCFullYear();
  const thisMonth = new Date().getUTCMonth() + 1;
  const card = (patch: Record<string, unknown>) => ({ ...cardBody(CARDS.succeeds).card, ...patch });
  const invalid: [string, string, string, Record<string, unknown>][] = [
    ['a number failing Luhn', 'card.number', 'parameter_invalid', cardBody('4242424242424241')],
    ['a short number', 'card.number', 'parameter_invalid', cardBody('4242')],
    ['letters in the number', 'card.number', 'parameter_invalid', cardBody('4242abcd42424242')],
    [
      'a numeric number',
      'card.number',
      'parameter_invalid',
      { ...cardBody(CARDS.succeeds), card: card({ number: 4242424242424242 }) },
    ],
    [
      'no number',
      'card.number',
      'parameter_missing',
      { ...cardBody(CARDS.succeeds), card: { exp_month: 1, exp_year: 2099, cvc: '123' } },
    ],
    [
      'an expired year',
      'card.exp_year',
      'parameter_invalid',
      { ...cardBody(CARDS.succeeds), card: card({ exp_year: thisYear - 1 }) },
    ],
    ['month 13', 'card.exp_month', 'parameter_invalid', { ...cardBody(CARDS.succeeds), card: card({ exp_month: 13 }) }],
    ['a 2-digit cvc', 'card.cvc', 'parameter_invalid', { ...cardBody(CARDS.succeeds), card: card({ cvc: '12' }) }],
    ['a 5-digit cvc', 'card.cvc', 'parameter_invalid', { ...cardBody(CARDS.succeeds), card: card({ cvc: '12345' }) }],
    [
      'no billing name',
      'billing_details.name',
      'parameter_missing',
      { ...cardBody(CARDS.succeeds), billing_details: {} },
    ],
    [
      'a bad billing email',
      'billing_details.email',
      'parameter_invalid',
      { ...cardBody(CARDS.succeeds), billing_details: { name: 'A', email: 'nope' } },
    ],
    ['an unknown type', 'type', 'parameter_invalid', { ...cardBody(CARDS.succeeds), type: 'paypal' }],
    ['an unknown field', 'nickname', 'parameter_unknown', { ...cardBody(CARDS.succeeds), nickname: 'x' }],
    [
      'a bank field on a card',
      'us_bank_account',
      'parameter_unknown',
      { ...cardBody(CARDS.succeeds), us_bank_account: {} },
    ],
    [
      'a bad routing number',
      'us_bank_account.routing_number',
      'parameter_invalid',
      {
        ...bankBody(BANK_ACCOUNTS.succeeds),
        us_bank_account: {
          account_number: '000123456789',
          routing_number: '110000001',
          account_holder_type: 'individual',
        },
      },
    ],
    [
      'a bad account number',
      'us_bank_account.account_number',
      'parameter_invalid',
      {
        ...bankBody(BANK_ACCOUNTS.succeeds),
        us_bank_account: {
          account_number: '12',
          routing_number: TEST_ROUTING_NUMBER,
          account_holder_type: 'individual',
        },
      },
    ],
    [
      'a bad holder type',
      'us_bank_account.account_holder_type',
      'parameter_invalid',
      {
        ...bankBody(BANK_ACCOUNTS.succeeds),
        us_bank_account: {
          account_number: '000123456789',
          routing_number: TEST_ROUTING_NUMBER,
          account_holder_type: 'robot',
        },
      },
    ],
  ];
  if (thisMonth > 1)
    invalid.push([
      'an expired month of this year',
      'card.exp_month',
      'parameter_invalid',
      { ...cardBody(CARDS.succeeds), card: card({ exp_year: thisYear, exp_month: thisMonth - 1 }) },
    ]);

  it.each(invalid)('rejects %s with 400 naming %s (%s), and writes nothing', async (_label, param, code, body) => {
    const before = await app.prisma.paymentMethod.count({ where: { accountId } });
    const response = await api.post('/payment-methods', body);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ type: 'invalid_request_error', param, code });
    expect(JSON.stringify(response.body)).not.toContain(CARDS.succeeds);
    expect(await app.prisma.paymentMethod.count({ where: { accountId } })).toBe(before);
  });

  it("accepts the card of this month (valid through the month's end)", async () => {
    const response = await api.post('/payment-methods', {
      ...cardBody(CARDS.succeeds),
      card: card({ exp_year: thisYear, exp_month: thisMonth }),
    });
    expect(response.status).toBe(201);
  });

  it('answers 404 naming customer for an unknown or foreign customer', async () => {
    const foreign = await createCustomer(other);
    for (const customer of ['cus_missing', foreign.id]) {
      const response = await api.post('/payment-methods', cardBody(CARDS.succeeds, { customer }));
      expect(response.status).toBe(404);
      expect(response.body.error).toMatchObject({ type: 'not_found', param: 'customer' });
    }
  });
});

describe('POST /payment-methods (US bank accounts)', () => {
  it('answers the us_bank_account object with last4, fingerprint, networks and routing number', async () => {
    const response = await api.post(
      '/payment-methods',
      bankBody(BANK_ACCOUNTS.succeeds, {
        us_bank_account: {
          account_number: BANK_ACCOUNTS.succeeds,
          routing_number: TEST_ROUTING_NUMBER,
          account_holder_type: 'company',
          account_type: 'savings',
        },
      }),
    );
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      object: 'payment_method',
      type: 'us_bank_account',
      us_bank_account: {
        account_holder_type: 'company',
        account_type: 'savings',
        bank_name: expect.any(String),
        financial_connections_account: null,
        fingerprint: expect.any(String),
        last4: '6789',
        networks: { preferred: 'ach', supported: ['ach'] },
        routing_number: TEST_ROUTING_NUMBER,
        status_details: {},
      },
      livemode: false,
    });
    expect(response.body.card).toBeUndefined();
    expect(JSON.stringify(response.body)).not.toContain(BANK_ACCOUNTS.succeeds);
  });

  it('gives UUID ids on a bank_processor account', async () => {
    const bankAccount = await createTestAccount(app.prisma, { name: 'Bank processor' });
    await setGatewayKind(app.prisma, bankAccount.accountId, 'bank_processor');
    const bankApi = apiClient(app.baseUrl, bankAccount.apiKey);
    const card = await bankApi.post('/payment-methods', cardBody(CARDS.succeeds));
    const bank = await bankApi.post('/payment-methods', bankBody(BANK_ACCOUNTS.succeeds));
    expect(card.body.id).toMatch(UUID);
    expect(bank.body.id).toMatch(UUID);
    expect((await bankApi.get(`/payment-methods/${bank.body.id}`)).body.id).toBe(bank.body.id);
    expect((await bankApi.get(`/payment-methods/${bank.body.id.toUpperCase()}`)).body.id).toBe(bank.body.id);
    expect((await api.get(`/payment-methods/${bank.body.id}`)).status).toBe(404);
  });
});

describe('attach, detach and the default payment method', () => {
  it('attaches, makes the first method the default, and writes payment_method.attached with the customer', async () => {
    const customer = await createCustomer(api);
    const first = (await api.post('/payment-methods', cardBody(CARDS.succeeds))).body;
    const second = (await api.post('/payment-methods', cardBody('5555555555554444'))).body;
    const attached = await api.post(`/payment-methods/${first.id}/attach`, { customer: customer.id });
    expect(attached.status).toBe(200);
    expect(attached.body).toMatchObject({ id: first.id, customer: customer.id });
    expect((await api.post(`/payment-methods/${second.id}/attach`, { customer: customer.id })).status).toBe(200);

    const listed = await api.get(`/customers/${customer.id}/payment-methods`);
    expect(listed.status).toBe(200);
    expect(listed.body.meta).toEqual({ page: 1, take: 10, itemsTotal: 2, pagesTotal: 1 });
    expect(listed.body.data.map((m: { id: string }) => m.id)).toEqual([first.id, second.id]);

    const events = (await eventsOf(app.prisma, accountId, 'payment_method.attached')).filter(
      (e) => (e.data as { customer: string }).customer === customer.id,
    );
    expect(events.map((e) => (e.data as { id: string }).id)).toEqual([first.id, second.id]);
    expect(events[0]!.data).toEqual(attached.body);
  });

  it('moves the default with attach {default: true}', async () => {
    const customer = await createCustomer(api);
    const first = await addPaymentMethod(api, customer.id, cardBody(CARDS.succeeds));
    const second = await addPaymentMethod(api, customer.id, cardBody('5555555555554444'));
    expect((await api.get(`/customers/${customer.id}/payment-methods`)).body.data[0].id).toBe(first.id);
    const moved = await api.post(`/payment-methods/${second.id}/attach`, { customer: customer.id, default: true });
    expect(moved.status).toBe(200);
    expect(
      (await api.get(`/customers/${customer.id}/payment-methods`)).body.data.map((m: { id: string }) => m.id),
    ).toEqual([second.id, first.id]);
  });

  it('answers the saved method when the same card is attached again, and the event carries the saved one', async () => {
    const customer = await createCustomer(api);
    const saved = await addPaymentMethod(api, customer.id, cardBody(CARDS.succeeds));
    const duplicate = (await api.post('/payment-methods', cardBody(CARDS.succeeds))).body;
    const attached = await api.post(`/payment-methods/${duplicate.id}/attach`, { customer: customer.id });
    expect(attached.status).toBe(200);
    expect(attached.body.id).toBe(saved.id);
    const viaCreate = await api.post('/payment-methods', cardBody(CARDS.succeeds, { customer: customer.id }));
    expect(viaCreate.body.id).toBe(saved.id);

    const events = (await eventsOf(app.prisma, accountId, 'payment_method.attached')).filter(
      (e) => (e.data as { customer: string }).customer === customer.id,
    );
    expect(events.map((e) => (e.data as { id: string }).id)).toEqual([saved.id, saved.id, saved.id]);
    const listed = await api.get(`/customers/${customer.id}/payment-methods`);
    expect(listed.body.data.map((m: { id: string }) => m.id)).toEqual([saved.id]);
    expect((await api.get(`/payment-methods/${duplicate.id}`)).body.customer).toBeNull();
  });

  it('re-entering a saved card with a new expiry and billing details updates the saved method', async () => {
    const customer = await createCustomer(api);
    const saved = await addPaymentMethod(api, customer.id, cardBody(CARDS.succeeds));
    const later = new Date().getUTCFullYear() + 6;
    const renewed = await api.post(
      '/payment-methods',
      cardBody(CARDS.succeeds, {
        customer: customer.id,
        card: { number: CARDS.succeeds, exp_month: 3, exp_year: later, cvc: '123' },
        billing_details: { name: 'Ada King', email: 'ada@example.com', address: { country: 'GB', city: 'London' } },
      }),
    );
    expect(renewed.status).toBe(201);
    expect(renewed.body.id).toBe(saved.id);
    expect(renewed.body.card).toMatchObject({ exp_month: 3, exp_year: later });
    expect(renewed.body.billing_details).toMatchObject({
      name: 'Ada King',
      email: 'ada@example.com',
      address: { country: 'GB', city: 'London' },
    });
    expect((await api.get(`/payment-methods/${saved.id}`)).body).toEqual(renewed.body);

    // The same through attach: a new method of the same card answers the saved one, refreshed.
    const loose = (
      await api.post(
        '/payment-methods',
        cardBody(CARDS.succeeds, { card: { number: CARDS.succeeds, exp_month: 9, exp_year: later, cvc: '123' } }),
      )
    ).body;
    const attached = await api.post(`/payment-methods/${loose.id}/attach`, { customer: customer.id });
    expect(attached.body).toMatchObject({
      id: saved.id,
      card: { exp_month: 9, exp_year: later },
      billing_details: { name: 'Ada Lovelace' },
    });
    const [event] = (await eventsOf(app.prisma, accountId, 'payment_method.attached')).slice(-1);
    expect(event!.data).toEqual(attached.body);
  });

  it('re-attaching to the same customer changes nothing; attaching elsewhere while attached is 409', async () => {
    const customer = await createCustomer(api);
    const another = await createCustomer(api, 'Someone else');
    const method = await addPaymentMethod(api, customer.id, cardBody(CARDS.succeeds));
    const eventsBefore = (await eventsOf(app.prisma, accountId, 'payment_method.attached')).length;
    expect((await api.post(`/payment-methods/${method.id}/attach`, { customer: customer.id })).status).toBe(200);
    expect((await eventsOf(app.prisma, accountId, 'payment_method.attached')).length).toBe(eventsBefore);
    const elsewhere = await api.post(`/payment-methods/${method.id}/attach`, { customer: another.id });
    expect(elsewhere.status).toBe(409);
    expect(elsewhere.body.error.type).toBe('conflict');
  });

  it('detaches (customer null, payment_method.detached), hands the default on, and 409s a second detach', async () => {
    const customer = await createCustomer(api);
    const first = await addPaymentMethod(api, customer.id, cardBody(CARDS.succeeds));
    const second = await addPaymentMethod(api, customer.id, cardBody('5555555555554444'));
    const third = await addPaymentMethod(api, customer.id, cardBody('378282246310005'));
    const detached = await api.post(`/payment-methods/${first.id}/detach`);
    expect(detached.status).toBe(200);
    expect(detached.body).toMatchObject({ id: first.id, customer: null });
    const [event] = (await eventsOf(app.prisma, accountId, 'payment_method.detached')).filter(
      (e) => (e.data as { id: string }).id === first.id,
    );
    expect(event!.data).toEqual(detached.body);
    // The earliest-attached remaining method becomes the default.
    expect(
      (await api.get(`/customers/${customer.id}/payment-methods`)).body.data.map((m: { id: string }) => m.id),
    ).toEqual([second.id, third.id]);
    expect((await api.post(`/payment-methods/${first.id}/detach`)).status).toBe(409);
    expect((await api.get(`/customers/${customer.id}/payment-methods/${first.id}`)).status).toBe(404);
  });

  it('a detached method is never attached again (409 payment_method_detached); the card entered again for the customer is a new method', async () => {
    const customer = await createCustomer(api);
    const method = await addPaymentMethod(api, customer.id, cardBody(CARDS.succeeds));
    expect((await api.post(`/payment-methods/${method.id}/detach`)).status).toBe(200);
    for (const target of [customer.id, (await createCustomer(api, 'Someone else')).id]) {
      const again = await api.post(`/payment-methods/${method.id}/attach`, { customer: target });
      expect(again.status).toBe(409);
      expect(again.body.error).toMatchObject({ type: 'conflict', code: 'payment_method_detached' });
    }
    // Not even as the saved card a new method of the same number would answer.
    const reentered = await api.post(
      '/payment-methods',
      cardBody(CARDS.succeeds, { customer: customer.id, billing_details: { name: 'Ada King' } }),
    );
    expect(reentered.status).toBe(201);
    expect(reentered.body).toMatchObject({
      customer: customer.id,
      billing_details: { name: 'Ada King' },
      card: { fingerprint: method.card.fingerprint },
    });
    expect(reentered.body.id).not.toBe(method.id);
    expect(
      (await api.get(`/customers/${customer.id}/payment-methods`)).body.data.map((m: { id: string }) => m.id),
    ).toEqual([reentered.body.id]);
    // Entered again, the saved (new) method answers as before.
    expect((await api.post('/payment-methods', cardBody(CARDS.succeeds, { customer: customer.id }))).body.id).toBe(
      reentered.body.id,
    );
    expect((await api.get(`/payment-methods/${method.id}`)).body.customer).toBeNull();
  });

  it('validates the attach body', async () => {
    const method = (await api.post('/payment-methods', cardBody(CARDS.succeeds))).body;
    const cases: [object, string][] = [
      [{}, 'customer'],
      [{ customer: 'not an id' }, 'customer'],
      [{ customer: 'cus_x', default: 'yes' }, 'default'],
      [{ customer: 'cus_x', extra: 1 }, 'extra'],
    ];
    for (const [body, param] of cases) {
      const response = await api.post(`/payment-methods/${method.id}/attach`, body);
      expect(response.status).toBe(400);
      expect(response.body.error.param).toBe(param);
    }
    expect(
      (await api.post(`/payment-methods/${method.id}/attach`, { customer: 'cus_missing' })).body.error,
    ).toMatchObject({ param: 'customer', type: 'not_found' });
  });
});

describe('GET /payment-methods and the customer sub-routes', () => {
  let listApi: ApiClient;
  let customerId: string;
  const created: string[] = [];

  beforeAll(async () => {
    listApi = apiClient(app.baseUrl, (await createTestAccount(app.prisma)).apiKey);
    customerId = (await createCustomer(listApi)).id;
    for (const number of [CARDS.succeeds, '5555555555554444', '378282246310005']) {
      created.push((await addPaymentMethod(listApi, customerId, cardBody(number))).id);
    }
    created.push((await listApi.post('/payment-methods', bankBody(BANK_ACCOUNTS.succeeds))).body.id);
  });

  it('pages the account methods newest first, filtered by customer and type', async () => {
    const all = await listApi.get('/payment-methods?take=3');
    expect(all.body.meta).toEqual({ page: 1, take: 3, itemsTotal: 4, pagesTotal: 2 });
    expect(all.body.data.map((m: { id: string }) => m.id)).toEqual([...created].reverse().slice(0, 3));
    expect((await listApi.get('/payment-methods?take=3&page=2')).body.data.map((m: { id: string }) => m.id)).toEqual([
      created[0],
    ]);
    expect((await listApi.get(`/payment-methods?customer=${customerId}`)).body.meta.itemsTotal).toBe(3);
    expect(
      (await listApi.get('/payment-methods?type=us_bank_account')).body.data.map((m: { id: string }) => m.id),
    ).toEqual([created[3]]);
    expect((await listApi.get('/payment-methods?take=101')).body.error.param).toBe('take');
    expect((await listApi.get('/payment-methods?type=paypal')).body.error.param).toBe('type');
  });

  it("pages a customer's methods with {data, meta} and retrieves one", async () => {
    const page = await listApi.get(`/customers/${customerId}/payment-methods?take=2&page=2`);
    expect(page.status).toBe(200);
    expect(page.body.meta).toEqual({ page: 2, take: 2, itemsTotal: 3, pagesTotal: 2 });
    expect(page.body.data).toHaveLength(1);
    const one = await listApi.get(`/customers/${customerId}/payment-methods/${created[1]}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: created[1], customer: customerId, object: 'payment_method' });
    // A method of the account that is not this customer's is a 404 here.
    expect((await listApi.get(`/customers/${customerId}/payment-methods/${created[3]}`)).status).toBe(404);
    expect((await listApi.get(`/customers/${customerId}/payment-methods/pm_missing`)).status).toBe(404);
    expect((await listApi.get(`/customers/${customerId}/payment-methods/not-an-id`)).status).toBe(404);
  });

  it('answers 404 on every endpoint for another account (exactly like an unknown id)', async () => {
    const mine = created[0]!;
    const foreignCustomer = await createCustomer(other);
    const foreignMethod = (await other.post('/payment-methods', cardBody(CARDS.succeeds))).body.id;
    const checks: [string, Promise<{ status: number; body: any }>][] = [
      ['GET method', other.get(`/payment-methods/${mine}`)],
      ['attach', other.post(`/payment-methods/${mine}/attach`, { customer: foreignCustomer.id })],
      ['detach', other.post(`/payment-methods/${mine}/detach`)],
      ['customer list', other.get(`/customers/${customerId}/payment-methods`)],
      ['customer one', other.get(`/customers/${customerId}/payment-methods/${mine}`)],
      [
        'attach to a foreign customer',
        listApi.post(`/payment-methods/${created[3]}/attach`, { customer: foreignCustomer.id }),
      ],
      ['attach a foreign method', listApi.post(`/payment-methods/${foreignMethod}/attach`, { customer: customerId })],
      ['unknown method', listApi.get('/payment-methods/pm_doesnotexist')],
    ];
    for (const [label, request] of checks) {
      const response = await request;
      expect([label, response.status]).toEqual([label, 404]);
      expect(response.body.error.type).toBe('not_found');
    }
    expect((await other.get('/payment-methods')).body.data.map((m: { id: string }) => m.id)).not.toContain(mine);
    expect((await listApi.get(`/payment-methods/${created[3]}`)).body.customer).toBeNull();
  });
});

describe('no full card or account number is stored or logged', () => {
  it('leaves no trace of any test number in any table or in the logs', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const captured: string[] = [];
    const originalStdout = process.stdout.write.bind(process.stdout);
    const originalStderr = process.stderr.write.bind(process.stderr);
    const capture = (original: typeof process.stdout.write) =>
      ((chunk: unknown, ...rest: unknown[]) => {
        captured.push(String(chunk));
        return (original as (...args: unknown[]) => boolean)(chunk, ...rest);
      }) as typeof process.stdout.write;
    process.stdout.write = capture(originalStdout);
    process.stderr.write = capture(originalStderr);

    const server = http.createServer(
      createApp({ prisma: app.prisma, temporal: app.temporal, logger: pino({ level: 'trace' }, sink) }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const numbers = [...Object.values(CARDS), ...Object.values(BANK_ACCOUNTS), '5555555555554444', '378282246310005'];
    try {
      const { apiKey } = await createTestAccount(app.prisma);
      const logged = apiClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey);
      for (const [index, number] of numbers.entries()) {
        const customer = await createCustomer(logged);
        const body = number.length === 12 ? bankBody(number) : cardBody(number);
        const method = await logged.post(
          '/payment-methods',
          { ...body, customer: customer.id },
          { 'Idempotency-Key': `pm-${index}` },
        );
        expect(method.status).toBe(201);
        // Exercise the gateway (charges, declines, a refund) and the idempotency store.
        const invoice = await simpleInvoice(logged, customer.id, 1234);
        const paid = await logged.put(`/invoices/${invoice.id}`, {}, { 'Idempotency-Key': `pay-${index}` });
        expect(paid.status).toBe(200);
        if (paid.body.status === 'paid')
          expect((await logged.post(`/invoices/${invoice.id}/refund`, { amount: 100 })).status).toBe(201);
        // Failed requests carrying the number: validation errors, an unknown customer.
        expect((await logged.post('/payment-methods', { ...body, billing_details: {} })).status).toBe(400);
        expect((await logged.post('/payment-methods', { ...body, customer: 'cus_missing' })).status).toBe(404);
      }
      expect(
        (
          await logged.request('POST', '/payment-methods', `{"type":"card","card":{"number":"${CARDS.succeeds}"`, {
            'content-type': 'application/json',
          })
        ).status,
      ).toBe(400);
    } finally {
      process.stdout.write = originalStdout;
      process.stderr.write = originalStderr;
      server.closeAllConnections();
      server.close();
    }

    const tables = await app.prisma.$queryRaw<{ table_name: string }[]>`
      SELECT table_name::text AS table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`;
    expect(tables.map((t) => t.table_name)).toEqual(
      expect.arrayContaining(['payment_methods', 'gateway_charges', 'idempotency_keys', 'events', 'transactions']),
    );
    let rowsScanned = 0;
    let controlSeen = false;
    for (const { table_name } of tables) {
      const rows = await app.prisma.$queryRawUnsafe<{ row: string }[]>(
        `SELECT row_to_json(t)::text AS row FROM "${table_name.replace(/"/g, '""')}" t`,
      );
      rowsScanned += rows.length;
      // Control: the scan does see what requests stored (the customers' email).
      controlSeen ||= rows.some(({ row }) => row.includes('grace@example.com'));
      for (const { row } of rows) {
        for (const number of numbers) expect([table_name, row.includes(number)]).toEqual([table_name, false]);
      }
    }
    expect(rowsScanned).toBeGreaterThan(50);
    expect(controlSeen).toBe(true);

    const logText = lines.join('') + captured.join('');
    expect(lines.length).toBeGreaterThan(numbers.length * 5);
    expect(logText).toContain('/payment-methods');
    for (const number of numbers) expect(logText.includes(number)).toBe(false);
  });
});
