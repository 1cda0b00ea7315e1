import { newId } from '../../src/lib/ids';
import { MAX_CHARGE_AMOUNT } from '../../src/lib/money';
import { createProduct, monthlyPrice } from '../support/catalog';
import { startTwoAccountApp, type ApiClient, type TestApp } from '../support/harness';
import { CARDS, createInvoice, createTaxRate, customerWithCard, gatewayCharges } from '../support/payments';

let app: TestApp;
let api: ApiClient;
let accountId: string;

beforeAll(async () => {
  ({ app, api, accountId } = await startTwoAccountApp());
});

afterAll(() => app.close());

describe('the charge ceiling (99999999 cents per invoice)', () => {
  it('refuses a line that comes to more than the ceiling, naming its quantity, and writes nothing', async () => {
    const { customer } = await customerWithCard(api);
    const before = await app.prisma.invoice.count({ where: { accountId } });
    const response = await api.post('/invoices', {
      customer: customer.id,
      lines: [{ description: 'Huge', amount: 99999999, quantity: 100000 }],
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'amount_too_large',
      param: 'lines.0.quantity',
    });
    expect(await app.prisma.invoice.count({ where: { accountId } })).toBe(before);
    expect(await gatewayCharges(app.prisma, accountId)).toBe(0);
  });

  it('refuses lines that add up past the ceiling (naming lines), and counts exclusive tax in', async () => {
    const { customer } = await customerWithCard(api);
    const sum = await api.post('/invoices', {
      customer: customer.id,
      lines: [
        { description: 'Half', amount: 50_000_000 },
        { description: 'Half', amount: 50_000_000 },
      ],
    });
    expect(sum.status).toBe(400);
    expect(sum.body.error).toMatchObject({ code: 'amount_too_large', param: 'lines' });

    const rate = await createTaxRate(api, 10, false);
    const taxed = await api.post('/invoices', {
      customer: customer.id,
      lines: [{ description: 'Taxed', amount: 95_000_000, tax: [rate.id] }],
    });
    expect(taxed.status).toBe(400);
    expect(taxed.body.error).toMatchObject({ code: 'amount_too_large', param: 'lines.0.quantity' });
  });

  it('bills exactly the ceiling', async () => {
    const { customer } = await customerWithCard(api);
    const invoice = await createInvoice(api, {
      customer: customer.id,
      lines: [{ description: 'All of it', amount: MAX_CHARGE_AMOUNT }],
    });
    const paid = await api.put(`/invoices/${invoice.id}`);
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ status: 'paid', amount_paid: MAX_CHARGE_AMOUNT });
  });
});

describe('one-off invoice rules', () => {
  it('refuses a due_date in the past, naming it', async () => {
    const { customer } = await customerWithCard(api);
    const yesterday = Math.floor(Date.now() / 1000) - 86_400;
    const response = await api.post('/invoices', {
      customer: customer.id,
      lines: [{ description: 'Late', amount: 100 }],
      due_date: yesterday,
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ param: 'due_date' });
    const tomorrow = yesterday + 2 * 86_400;
    const ok = await api.post('/invoices', {
      customer: customer.id,
      lines: [{ description: 'On time', amount: 100 }],
      due_date: tomorrow,
    });
    expect(ok.status).toBe(201);
    expect(ok.body.due_date).toBe(tomorrow);
  });

  it('refuses a recurring price (subscriptions bill those), naming the line', async () => {
    const { customer } = await customerWithCard(api);
    const product = await createProduct(api, monthlyPrice);
    const response = await api.post('/invoices', {
      customer: customer.id,
      lines: [{ description: 'Fine', amount: 100 }, { price: product.default_price }],
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ param: 'lines.1.price' });
    expect(response.body.error.message).toMatch(/recurring/);
  });
});

describe('GET /balance', () => {
  it('sums exactly past 2^53 cents (a string of digits where a JSON number would round)', async () => {
    // Rows written directly: no API path can move this much (the ceiling), but the sum must still be exact.
    const big = 4_503_599_627_370_497n; // 2^52 + 1: two of them make 2^53 + 2, which a double cannot hold
    for (let index = 0; index < 2; index += 1) {
      await app.prisma.transaction.create({
        data: {
          id: newId('transaction'),
          accountId,
          type: 'adjustment',
          status: 'succeeded',
          amount: big,
          currency: 'EUR',
        },
      });
    }
    await app.prisma.transaction.create({
      data: {
        id: newId('transaction'),
        accountId,
        type: 'adjustment',
        status: 'pending',
        amount: 1234n,
        currency: 'EUR',
      },
    });
    const balance = await api.get('/balance');
    expect(balance.status).toBe(200);
    const eur = (list: { amount: number | string; currency: string }[]) =>
      list.find((entry) => entry.currency === 'EUR')!.amount;
    expect(eur(balance.body.available)).toBe('9007199254740994');
    expect(eur(balance.body.pending)).toBe(1234);
  });
});

test('the card on file charges at most the ceiling even when asked for more (gateway guard)', async () => {
  const { simulatorFor } = await import('../support/payments');
  const { method } = await customerWithCard(api, CARDS.succeeds);
  const row = await app.prisma.paymentMethod.findUniqueOrThrow({ where: { id: method.id } });
  const { toGatewayPaymentMethod } = await import('../../src/payments/payment-method.service');
  await expect(
    (await simulatorFor(app.prisma, accountId)).charge({
      amount: MAX_CHARGE_AMOUNT + 1,
      currency: 'USD',
      paymentMethod: toGatewayPaymentMethod(row),
      idempotencyKey: `ceiling-test-${newId('transaction')}`,
      description: 'too much',
    }),
  ).rejects.toMatchObject({ code: 'amount_too_large' });
});
