import pg from 'pg';
import { lockInvoiceRow } from '../../src/invoices/invoice.records';
import { findInvoice } from '../../src/invoices';
import { lockPrice } from '../../src/catalog/records';
import { findDefaultPaymentMethod, readPaymentMethod } from '../../src/payments/payment-method.service';
import { paymentAttempts } from '../../src/transactions/ledger';
import { apiClient, createTestAccount, startTestApp, type ApiClient, type TestApp } from '../support/harness';
import { createProduct } from '../support/catalog';
import { createInvoice, createTaxRate, customerWithCard } from '../support/payments';

// The payment path reads and writes rows with single SQL statements (src/db/sql.ts) instead of Prisma's
// model calls. Two things must hold for that to be safe: a row comes back exactly as Prisma reads it
// (bigints as BigInt, timestamps as Date, JSON and arrays as values), and a statement run with a
// transaction's client runs inside that transaction (its row locks held until the commit).

let app: TestApp;
let api: ApiClient;
let accountId: string;
beforeAll(async () => {
  app = await startTestApp();
  const account = await createTestAccount(app.prisma);
  accountId = account.accountId;
  api = apiClient(app.baseUrl, account.apiKey);
});
afterAll(() => app.close());

/** Whether another connection can take the row's lock at once (false: a transaction holds it). */
async function lockFree(table: 'invoices' | 'prices', id: string): Promise<boolean> {
  const other = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await other.connect();
  try {
    await other.query(`SELECT id FROM ${table} WHERE id = $1 FOR UPDATE NOWAIT`, [id]);
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === '55P03') return false;
    throw error;
  } finally {
    await other.end();
  }
}

it("reads an invoice with its lines, a price, payment methods and ledger entries exactly as Prisma does, and an invoice's lock is its transaction's", async () => {
  const { customer, method } = await customerWithCard(api);
  const rate = await createTaxRate(api, 8.25, false);
  const product = await createProduct(api, { unit_amount: 1250, tax_behavior: 'exclusive' });
  const draft = await createInvoice(api, {
    customer: customer.id,
    lines: [
      { price: product.default_price, quantity: 2, tax: [rate.id] },
      { description: 'Setup', amount: 900, quantity: 1 },
    ],
  });
  const paid = await api.put(`/invoices/${draft.id}`, {}, { 'Idempotency-Key': 'row-statements-pay' });
  expect(paid.status).toBe(200);
  expect(paid.body).toMatchObject({ status: 'paid', amount_paid: 3606, attempt_count: 1 });

  const prismaInvoice = await findInvoice(app.prisma, accountId, draft.id);
  const locked = await app.prisma.$transaction(async (tx) => {
    const row = await lockInvoiceRow(tx, accountId, draft.id);
    expect(await lockFree('invoices', draft.id)).toBe(false);
    return row;
  });
  expect(await lockFree('invoices', draft.id)).toBe(true);
  expect(locked).toEqual({ ...prismaInvoice, lines: [...prismaInvoice.lines].sort((a, b) => a.position - b.position) });
  expect(typeof locked!.amountPaid).toBe('bigint');
  expect(locked!.lines[0]!.periodStart).toBeInstanceOf(Date);

  const price = await app.prisma.$transaction(async (tx) => {
    const row = await lockPrice(tx, accountId, product.default_price, 'update');
    expect(await lockFree('prices', product.default_price)).toBe(false);
    return row;
  });
  expect(price).toEqual(await app.prisma.price.findFirstOrThrow({ where: { id: product.default_price } }));

  const prismaMethod = await app.prisma.paymentMethod.findFirstOrThrow({ where: { id: method.id } });
  expect(await readPaymentMethod(app.prisma, accountId, method.id)).toEqual(prismaMethod);
  expect(await findDefaultPaymentMethod(app.prisma, accountId, customer.id)).toEqual(prismaMethod);
  // Another account's id reads as nothing.
  expect(await readPaymentMethod(app.prisma, (await createTestAccount(app.prisma)).accountId, method.id)).toBeNull();

  // The attempt under its key (settled, so only the key finds it), as Prisma reads it.
  const entries = await app.prisma.transaction.findMany({ where: { invoiceId: draft.id, type: 'payment' } });
  expect(entries).toHaveLength(1);
  expect(entries[0]!.attemptKey).not.toBeNull();
  expect(
    await app.prisma.$transaction((tx) => paymentAttempts(tx, accountId, draft.id, entries[0]!.attemptKey)),
  ).toEqual(entries);
  expect(await app.prisma.$transaction((tx) => paymentAttempts(tx, accountId, draft.id, null))).toEqual([]);
});
