import fc from 'fast-check';
import { createCreditNote } from '../../src/credit-notes/credit-note.service';
import { MAX_CHARGE_AMOUNT } from '../../src/lib/money';
import { registeredGateways } from '../../src/gateway-registrations';
import { eventsOf, expectStatus, startTwoAccountApp, type ApiClient, type TestApp } from '../support/harness';
import { expectCursorWalk } from '../support/cursor-lists';
import { newId } from '../../src/lib/ids';
import { createInvoice, createTaxRate, customerWithCard, simpleInvoice, wrappedGateways } from '../support/payments';

// Credit notes and the customer's credit balance through HTTP against the real database
// (docs/decisions.md §22). The renewal that uses the balance is in credit-balance-renewal.test.ts.

let app: TestApp;
let api: ApiClient;
let accountId: string;
let other: ApiClient;

beforeAll(async () => {
  ({ app, api, accountId, other } = await startTwoAccountApp());
});

afterAll(() => app.close());

/** A finalized, unpaid invoice of `amount` cents for a customer with a working card. */
async function openInvoice(amount: number, customer?: string) {
  const owner = customer ?? (await customerWithCard(api)).customer.id;
  const draft = await simpleInvoice(api, owner, amount);
  return expectStatus(await api.post(`/invoices/${draft.id}/finalize`), 200, 'finalize');
}

/** An invoice of `amount` cents paid by card. */
async function paidInvoice(amount: number, customer?: string) {
  const owner = customer ?? (await customerWithCard(api)).customer.id;
  const draft = await simpleInvoice(api, owner, amount);
  const paid = expectStatus(await api.put(`/invoices/${draft.id}`), 200, 'pay');
  expect(paid.status).toBe('paid');
  return paid;
}

const credit = (body: Record<string, unknown>, client = api, headers?: Record<string, string>) =>
  client.post('/credit-notes', body, headers);

const invoiceOf = async (id: string) => expectStatus(await api.get(`/invoices/${id}`), 200);
const customerOf = async (id: string) => expectStatus(await api.get(`/customers/${id}`), 200);

describe('credit notes against an open invoice', () => {
  it('lowers the amount due, numbered per account, with events; retrieved and listed by invoice and customer', async () => {
    const invoice = await openInvoice(5000);
    const note = expectStatus(
      await credit({ invoice: invoice.id, amount: 1200, reason: 'order_change', memo: 'One seat less' }),
      201,
    );
    expect(note).toEqual({
      id: expect.stringMatching(/^cn_[a-zA-Z0-9]{24}$/),
      object: 'credit_note',
      number: expect.stringMatching(/^CN-\d{6}$/),
      invoice: invoice.id,
      customer: invoice.customer,
      currency: 'USD',
      amount: 1200,
      reason: 'order_change',
      type: 'pre_payment',
      refund_to: null,
      memo: 'One seat less',
      status: 'issued',
      transaction: null,
      customer_balance_transaction: null,
      lines: [
        {
          id: expect.stringMatching(/^cnl_/),
          object: 'credit_note_line',
          invoice_line: null,
          description: `Credit on invoice ${invoice.number}`,
          quantity: null,
          amount: 1200,
        },
      ],
      created: expect.any(Number),
      voided_at: null,
      updated_ms: expect.any(Number),
    });
    expect(await invoiceOf(invoice.id)).toMatchObject({
      status: 'open',
      total: 5000,
      amount_due: 3800,
      amount_remaining: 3800,
      pre_payment_credit_notes_amount: 1200,
    });
    const second = expectStatus(await credit({ invoice: invoice.id, amount: 800, reason: 'duplicate' }), 201);
    expect(Number(second.number.slice(3))).toBe(Number(note.number.slice(3)) + 1);

    // Paying charges what is left.
    const paid = expectStatus(await api.put(`/invoices/${invoice.id}`), 200);
    expect(paid).toMatchObject({ status: 'paid', amount_due: 3000, amount_paid: 3000 });

    expect(expectStatus(await api.get(`/credit-notes/${note.id}`), 200)).toEqual(note);
    const byInvoice = expectStatus(await api.get(`/credit-notes?invoice=${invoice.id}`), 200);
    expect(byInvoice.data.map((row: { id: string }) => row.id)).toEqual([second.id, note.id]);
    expect(byInvoice.meta).toEqual({ page: 1, take: 10, itemsTotal: 2, pagesTotal: 1 });
    const byCustomer = expectStatus(await api.get(`/credit-notes?customer=${invoice.customer}&take=1&page=2`), 200);
    expect(byCustomer.data.map((row: { id: string }) => row.id)).toEqual([note.id]);
    // By cursor too: the same two, one at a time; another account's key cannot use them.
    expect(await expectCursorWalk(api, other, `/credit-notes?invoice=${invoice.id}`, newId('creditNote'))).toEqual([
      second.id,
      note.id,
    ]);

    const events = await eventsOf(app.prisma, accountId);
    const created = events.filter((event) => event.type === 'credit_note.created');
    expect(created.map((event) => (event.data as { id: string }).id)).toEqual(
      expect.arrayContaining([note.id, second.id]),
    );
    const updated = events.filter(
      (event) => event.type === 'invoice.updated' && (event.data as { id: string }).id === invoice.id,
    );
    expect(updated.map((event) => (event.data as { amount_due: number }).amount_due)).toEqual([3800, 3000]);
  });

  it('credited in full, an open invoice is paid without a charge (invoice.payment_succeeded)', async () => {
    const invoice = await openInvoice(2500);
    expectStatus(await credit({ invoice: invoice.id, amount: 2500, reason: 'fraudulent' }), 201);
    const after = await invoiceOf(invoice.id);
    expect(after).toMatchObject({ status: 'paid', paid: true, amount_due: 0, amount_paid: 0, amount_remaining: 0 });
    expect(after.status_transitions.paid_at).toEqual(expect.any(Number));
    const succeeded = (await eventsOf(app.prisma, accountId, 'invoice.payment_succeeded')).filter(
      (event) => (event.data as { id: string }).id === invoice.id,
    );
    expect(succeeded).toHaveLength(1);
    expect(await app.prisma.gatewayCharge.count({ where: { accountId, kind: 'charge', amount: 2500 } })).toBe(0);
    // Nothing is left to credit: it was never collected.
    const more = await credit({ invoice: invoice.id, amount: 1, reason: 'duplicate', refund_to: 'outside' });
    expect(more.status).toBe(400);
    expect(more.body.error).toMatchObject({ param: 'amount', code: 'amount_exceeds_creditable' });
  });

  it('credits by line: a quantity is its share of the line with tax, rounded half-up; a line is never over-credited', async () => {
    const { customer } = await customerWithCard(api);
    const tax = await createTaxRate(api, 8.25, false);
    const draft = await createInvoice(api, {
      customer: customer.id,
      lines: [
        { description: 'Seats', amount: 333, quantity: 3, tax: [tax.id] },
        { description: 'Setup', amount: 1000 },
      ],
    });
    const invoice = expectStatus(await api.post(`/invoices/${draft.id}/finalize`), 200);
    const [seats, setup] = invoice.lines;
    const seatsTotal = seats.amount_excluding_tax + seats.tax_amounts[0].amount; // 999 + 82 (8.25% of 999 = 82.42)
    expect(seatsTotal).toBe(1081);

    const note = expectStatus(
      await credit({
        invoice: invoice.id,
        reason: 'product_unsatisfactory',
        lines: [
          { invoice_line: seats.id, quantity: 1 },
          { invoice_line: setup.id, amount: 400 },
        ],
      }),
      201,
    );
    // 1081 / 3 = 360.33 -> 360.
    expect(note.lines.map((line: any) => [line.invoice_line, line.quantity, line.amount])).toEqual([
      [seats.id, 1, 360],
      [setup.id, null, 400],
    ]);
    expect(note.amount).toBe(760);
    expect((await invoiceOf(invoice.id)).amount_due).toBe(invoice.total - 760);

    const tooMuch = await credit({
      invoice: invoice.id,
      reason: 'duplicate',
      lines: [{ invoice_line: setup.id, amount: 601 }],
    });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.error).toMatchObject({ param: 'lines.0.amount', code: 'amount_exceeds_creditable' });
    const tooMany = await credit({
      invoice: invoice.id,
      reason: 'duplicate',
      lines: [{ invoice_line: seats.id, quantity: 4 }],
    });
    expect(tooMany.body.error.param).toBe('lines.0.quantity');
    const unknown = await credit({ invoice: invoice.id, reason: 'duplicate', lines: [{ invoice_line: 'il_nope' }] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.param).toBe('lines.0.invoice_line');
    const twice = await credit({
      invoice: invoice.id,
      reason: 'duplicate',
      lines: [
        { invoice_line: setup.id, amount: 1 },
        { invoice_line: setup.id, amount: 1 },
      ],
    });
    expect(twice.body.error.param).toBe('lines.1.invoice_line');

    // A line named alone is what is left of it.
    const rest = expectStatus(
      await credit({ invoice: invoice.id, reason: 'duplicate', lines: [{ invoice_line: seats.id }] }),
      201,
    );
    expect(rest.amount).toBe(seatsTotal - 360);
    const none = await credit({ invoice: invoice.id, reason: 'duplicate', lines: [{ invoice_line: seats.id }] });
    expect(none.status).toBe(400);
    expect(none.body.error.param).toBe('lines.0.invoice_line');
  });
});

describe('credit notes against a paid invoice', () => {
  it('refunds the card (a refund transaction through the refund service)', async () => {
    const invoice = await paidInvoice(4000);
    const note = expectStatus(
      await credit({ invoice: invoice.id, amount: 1500, reason: 'product_unsatisfactory', refund_to: 'card' }),
      201,
    );
    expect(note).toMatchObject({ type: 'post_payment', refund_to: 'card', status: 'issued' });
    const refund = expectStatus(await api.get(`/transactions/${note.transaction}`), 200);
    expect(refund).toMatchObject({ type: 'refund', status: 'succeeded', amount: -1500, invoice: invoice.id });
    expect(await invoiceOf(invoice.id)).toMatchObject({
      status: 'paid',
      amount_refunded: 1500,
      post_payment_credit_notes_amount: 1500,
    });
    // Past what is left to refund on the card: 400 naming the field.
    const over = await credit({ invoice: invoice.id, amount: 2501, reason: 'duplicate', refund_to: 'card' });
    expect(over.status).toBe(400);
    expect(over.body.error.param).toBe('amount');
  });

  it("credits the customer's balance (negative cents), with its history; settles outside as an adjustment", async () => {
    const { customer } = await customerWithCard(api);
    const invoice = await paidInvoice(3000, customer.id);
    const toBalance = expectStatus(
      await credit({ invoice: invoice.id, amount: 1000, reason: 'order_change', refund_to: 'customer_balance' }),
      201,
    );
    expect(toBalance.customer_balance_transaction).toMatch(/^cbtxn_/);
    expect(await customerOf(customer.id)).toMatchObject({ balance: -1000, balance_currency: 'USD' });
    const outside = expectStatus(
      await credit({ invoice: invoice.id, amount: 500, reason: 'duplicate', refund_to: 'outside' }),
      201,
    );
    expect(expectStatus(await api.get(`/transactions/${outside.transaction}`), 200)).toMatchObject({
      type: 'adjustment',
      status: 'succeeded',
      amount: -500,
      invoice: invoice.id,
      customer: customer.id,
    });

    // What is left (1500) caps the plain refund endpoint as well as credit notes.
    const over = await api.post(`/invoices/${invoice.id}/refund`, { amount: 1501 });
    expect(over.status).toBe(400);
    expect(over.body.error.param).toBe('amount');
    const overNote = await credit({ invoice: invoice.id, amount: 1501, reason: 'duplicate', refund_to: 'outside' });
    expect(overNote.body.error.param).toBe('amount');
    expectStatus(await api.post(`/invoices/${invoice.id}/refund`, {}), 201);
    expect(await invoiceOf(invoice.id)).toMatchObject({
      amount_refunded: 1500,
      post_payment_credit_notes_amount: 1500,
    });

    const history = expectStatus(await api.get(`/customers/${customer.id}/balance-transactions`), 200);
    expect(history.data).toEqual([
      {
        id: toBalance.customer_balance_transaction,
        object: 'customer_balance_transaction',
        type: 'credit_note',
        amount: -1000,
        currency: 'USD',
        ending_balance: -1000,
        customer: customer.id,
        invoice: invoice.id,
        credit_note: toBalance.id,
        description: expect.any(String),
        created: expect.any(Number),
      },
    ]);
    const updates = (await eventsOf(app.prisma, accountId, 'customer.updated')).filter(
      (event) => (event.data as { id: string }).id === customer.id,
    );
    expect(updates.map((event) => (event.data as { balance: number }).balance)).toEqual([-1000]);
  });
});

describe('card refunds at the gateway', () => {
  it("a refund the gateway did not answer is completed by the request's takeover (same key claim), never credited twice", async () => {
    const invoice = await paidInvoice(3000);
    const silent = wrappedGateways(app.prisma, () => ({
      refund: () => Promise.reject(new Error('timeout')),
    }));
    const real = registeredGateways(app.prisma);
    const body = { invoice: invoice.id, amount: 1000, reason: 'duplicate' as const, refund_to: 'card' as const };
    // The seed an Idempotency-Key's claim gives the request, and its takeover (src/http/idempotency.ts).
    const seed = `seed-${invoice.id}`;
    await expect(createCreditNote(app.prisma, silent, accountId, body, seed)).rejects.toMatchObject({ status: 502 });
    // Issued, its refund pending: another credit note waits for it (409); the takeover completes it.
    const [pending] = expectStatus(await api.get(`/credit-notes?invoice=${invoice.id}`), 200).data;
    expect(pending).toMatchObject({ status: 'issued', amount: 1000 });
    expect(expectStatus(await api.get(`/transactions/${pending.transaction}`), 200).status).toBe('pending');
    const meanwhile = await credit({ ...body, amount: 1 });
    expect(meanwhile.status).toBe(409);
    expect(meanwhile.body.error.code).toBe('refund_in_progress');
    const { note: again } = await createCreditNote(app.prisma, real, accountId, body, seed);
    expect(again).toMatchObject({ id: pending.id, status: 'issued' });
    expect(expectStatus(await api.get(`/transactions/${pending.transaction}`), 200).status).toBe('succeeded');
    expect(await invoiceOf(invoice.id)).toMatchObject({
      amount_refunded: 1000,
      post_payment_credit_notes_amount: 1000,
    });
    expect(await app.prisma.gatewayCharge.count({ where: { accountId, kind: 'refund', amount: 1000 } })).toBe(1);
    expect(expectStatus(await api.get(`/credit-notes?invoice=${invoice.id}`), 200).data).toHaveLength(1);

    // Through HTTP, a replayed key answers the first credit note.
    const headers = { 'Idempotency-Key': `cn-${invoice.id}` };
    const first = expectStatus(await credit({ ...body, amount: 500 }, api, headers), 201);
    const replay = await credit({ ...body, amount: 500 }, api, headers);
    expect(replay.status).toBe(201);
    expect(replay.body.id).toBe(first.id);
    expect((await invoiceOf(invoice.id)).post_payment_credit_notes_amount).toBe(1500);
  });

  it('a refund the gateway refuses voids its credit note (credit_note.voided), and the amount is creditable again', async () => {
    const invoice = await paidInvoice(2000);
    const refusing = wrappedGateways(app.prisma, () => ({
      refund: async () => ({
        status: 'failed',
        refundId: 're_refused',
        failureCode: 'charge_disputed',
        failureMessage: 'The charge is disputed.',
      }),
    }));
    const { note } = await createCreditNote(app.prisma, refusing, accountId, {
      invoice: invoice.id,
      amount: 2000,
      reason: 'fraudulent',
      refund_to: 'card',
    });
    expect(note).toMatchObject({ status: 'void', voided_at: expect.any(Number) });
    expect(expectStatus(await api.get(`/transactions/${note.transaction}`), 200)).toMatchObject({
      status: 'failed',
      failure_code: 'charge_disputed',
    });
    expect(await invoiceOf(invoice.id)).toMatchObject({ amount_refunded: 0, post_payment_credit_notes_amount: 0 });
    const voided = (await eventsOf(app.prisma, accountId, 'credit_note.voided')).map(
      (event) => (event.data as { id: string }).id,
    );
    expect(voided).toContain(note.id);
    expectStatus(await credit({ invoice: invoice.id, amount: 2000, reason: 'fraudulent', refund_to: 'card' }), 201);
  });
});

describe("the customer's balance on the next invoices", () => {
  it('is applied at finalization before the card is charged, and given back when such an invoice is voided', async () => {
    const { customer } = await customerWithCard(api);
    const first = await paidInvoice(2000, customer.id);
    expectStatus(
      await credit({ invoice: first.id, amount: 1500, reason: 'order_change', refund_to: 'customer_balance' }),
      201,
    );

    // All of a 1000 invoice is paid by the balance: no charge, a zero payment.
    const small = await simpleInvoice(api, customer.id, 1000);
    const paidByBalance = expectStatus(await api.put(`/invoices/${small.id}`), 200);
    expect(paidByBalance).toMatchObject({
      status: 'paid',
      total: 1000,
      applied_balance: 1000,
      amount_due: 0,
      amount_paid: 0,
    });
    expect((await customerOf(customer.id)).balance).toBe(-500);

    // Finalized without paying, it takes the rest; voided, it gives it back.
    const held = await openInvoice(800, customer.id);
    expect(held).toMatchObject({ applied_balance: 500, amount_due: 300 });
    expect((await customerOf(customer.id)).balance).toBe(0);
    expectStatus(await api.delete(`/invoices/${held.id}`), 200);
    expect((await customerOf(customer.id)).balance).toBe(-500);

    // The next one takes 500 and charges the card 1500.
    const big = await simpleInvoice(api, customer.id, 2000);
    const charged = expectStatus(await api.put(`/invoices/${big.id}`), 200);
    expect(charged).toMatchObject({ status: 'paid', applied_balance: 500, amount_due: 1500, amount_paid: 1500 });
    const payments = expectStatus(await api.get(`/invoices/${big.id}/transactions`), 200);
    expect(payments.data.map((txn: any) => [txn.type, txn.status, txn.amount])).toEqual([
      ['payment', 'succeeded', 1500],
    ]);
    expect(await customerOf(customer.id)).toMatchObject({ balance: 0 });

    const history = expectStatus(await api.get(`/customers/${customer.id}/balance-transactions?take=100`), 200);
    expect(history.data.map((entry: any) => [entry.type, entry.amount, entry.ending_balance])).toEqual([
      ['applied_to_invoice', 500, 0],
      ['unapplied_from_invoice', -500, -500],
      ['applied_to_invoice', 500, 0],
      ['applied_to_invoice', 1000, -500],
      ['credit_note', -1500, -1500],
    ]);
    // The balance's entries sum to it.
    expect(history.data.reduce((sum: number, entry: any) => sum + entry.amount, 0)).toBe(0);

    // A paid invoice partly paid by the balance can give all it collected back, the balance's part included.
    const back = expectStatus(
      await credit({ invoice: big.id, amount: 2000, reason: 'duplicate', refund_to: 'customer_balance' }),
      201,
    );
    expect(back.amount).toBe(2000);
    expect((await customerOf(customer.id)).balance).toBe(-2000);
  });

  it('an invoice it pays in full ends paid when finalized by POST /invoices/{id}/finalize, as a PUT leaves it', async () => {
    const { customer } = await customerWithCard(api);
    const first = await paidInvoice(3000, customer.id);
    expectStatus(
      await credit({ invoice: first.id, amount: 2500, reason: 'order_change', refund_to: 'customer_balance' }),
      201,
    );
    const charges = await app.prisma.gatewayCharge.count({ where: { accountId, kind: 'charge' } });
    const byFinalize = expectStatus(
      await api.post(`/invoices/${(await simpleInvoice(api, customer.id, 1200)).id}/finalize`),
      200,
    );
    const byPut = expectStatus(await api.put(`/invoices/${(await simpleInvoice(api, customer.id, 1300)).id}`), 200);
    for (const [invoice, total] of [
      [byFinalize, 1200],
      [byPut, 1300],
    ] as const) {
      expect(invoice).toMatchObject({ status: 'paid', paid: true, total, applied_balance: total, amount_due: 0 });
      expect(invoice.status_transitions.paid_at).toEqual(expect.any(Number));
      // Paid without a charge: a zero payment transaction, and invoice.payment_succeeded (its receipt's email).
      const txns = expectStatus(await api.get(`/invoices/${invoice.id}/transactions`), 200);
      expect(txns.data.map((txn: any) => [txn.type, txn.status, txn.amount])).toEqual([['payment', 'succeeded', 0]]);
      const succeeded = (await eventsOf(app.prisma, accountId, 'invoice.payment_succeeded')).filter(
        (event) => (event.data as { id: string }).id === invoice.id,
      );
      expect(succeeded.map((event) => (event.data as { status: string }).status)).toEqual(['paid']);
      expect(expectStatus(await api.put(`/invoices/${invoice.id}`), 409).error.code).toBe('invoice_already_paid');
    }
    expect(await app.prisma.gatewayCharge.count({ where: { accountId, kind: 'charge' } })).toBe(charges);
    expect((await customerOf(customer.id)).balance).toBe(0);
    // Another account can neither read nor finalize it.
    expect((await other.get(`/invoices/${byFinalize.id}`)).status).toBe(404);
    expect((await other.post(`/invoices/${byFinalize.id}/finalize`)).status).toBe(404);
  });

  it('holds one currency: a credit in another while it has credit is 409', async () => {
    const { customer } = await customerWithCard(api);
    const usd = await paidInvoice(1000, customer.id);
    expectStatus(
      await credit({ invoice: usd.id, amount: 100, reason: 'duplicate', refund_to: 'customer_balance' }),
      201,
    );
    const eurDraft = await createInvoice(api, {
      customer: customer.id,
      currency: 'EUR',
      lines: [{ description: 'Euro work', amount: 1000 }],
    });
    const eur = expectStatus(await api.put(`/invoices/${eurDraft.id}`), 200);
    expect(eur).toMatchObject({ status: 'paid', applied_balance: 0, amount_paid: 1000 });
    const refused = await credit({ invoice: eur.id, amount: 100, reason: 'duplicate', refund_to: 'customer_balance' });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('balance_currency_mismatch');
  });
});

describe('bad input', () => {
  it('refuses drafts and void invoices (409), bad bodies (400 naming the field), amounts past the ceiling', async () => {
    const { customer } = await customerWithCard(api);
    const draft = await simpleInvoice(api, customer.id, 1000);
    const onDraft = await credit({ invoice: draft.id, amount: 100, reason: 'duplicate' });
    expect(onDraft.status).toBe(409);
    expect(onDraft.body.error.code).toBe('invoice_not_finalized');
    const voided = await openInvoice(1000, customer.id);
    expectStatus(await api.delete(`/invoices/${voided.id}`), 200);
    const onVoid = await credit({ invoice: voided.id, amount: 100, reason: 'duplicate' });
    expect(onVoid.status).toBe(409);
    expect(onVoid.body.error.code).toBe('invoice_void');

    const open = await openInvoice(1000, customer.id);
    const paid = await paidInvoice(1000, customer.id);
    for (const [body, param] of [
      [{ invoice: open.id, amount: MAX_CHARGE_AMOUNT + 1, reason: 'duplicate' }, 'amount'],
      [{ invoice: open.id, amount: 0, reason: 'duplicate' }, 'amount'],
      [{ invoice: open.id, amount: 1.5, reason: 'duplicate' }, 'amount'],
      [{ invoice: open.id, amount: 1001, reason: 'duplicate' }, 'amount'],
      [{ invoice: open.id, amount: 100, reason: 'because' }, 'reason'],
      [{ invoice: open.id, amount: 100 }, 'reason'],
      [{ invoice: open.id, reason: 'duplicate' }, 'amount'],
      [{ invoice: open.id, amount: 100, reason: 'duplicate', lines: [{ invoice_line: open.lines[0].id }] }, 'amount'],
      [
        {
          invoice: open.id,
          reason: 'duplicate',
          lines: [{ invoice_line: open.lines[0].id, amount: MAX_CHARGE_AMOUNT + 1 }],
        },
        'lines.0.amount',
      ],
      [{ invoice: open.id, amount: 100, reason: 'duplicate', refund_to: 'card' }, 'refund_to'],
      [{ invoice: open.id, amount: 100, reason: 'duplicate', refund_to: 'wallet' }, 'refund_to'],
      [{ invoice: open.id, amount: 100, reason: 'duplicate', extra: 1 }, 'extra'],
      [{ invoice: 'not-a-uuid', amount: 100, reason: 'duplicate' }, 'invoice'],
      [{ invoice: paid.id, amount: 100, reason: 'duplicate' }, 'refund_to'],
    ] as const) {
      const refused = await credit(body);
      expect({ body, status: refused.status, param: refused.body.error?.param }).toEqual({ body, status: 400, param });
    }
    // Nothing was written by any of them.
    expect((await invoiceOf(open.id)).amount_due).toBe(1000);
    expect(expectStatus(await api.get(`/credit-notes?invoice=${open.id}`), 200).data).toEqual([]);
  });

  it("another account's invoice or credit note is 404", async () => {
    const invoice = await openInvoice(1000);
    const note = expectStatus(await credit({ invoice: invoice.id, amount: 100, reason: 'duplicate' }), 201);
    const stolen = await credit({ invoice: invoice.id, amount: 100, reason: 'duplicate' }, other);
    expect(stolen.status).toBe(404);
    expect(stolen.body.error.param).toBe('invoice');
    expect((await other.get(`/credit-notes/${note.id}`)).status).toBe(404);
    expect((await api.get('/credit-notes/cn_unknown')).status).toBe(404);
    expect(expectStatus(await other.get(`/credit-notes?invoice=${invoice.id}`), 200).data).toEqual([]);
    expect(expectStatus(await other.get('/credit-notes'), 200).data).toEqual([]);
    expect((await other.get(`/customers/${invoice.customer}/balance-transactions`)).status).toBe(404);
    expect((await invoiceOf(invoice.id)).amount_due).toBe(900);
  });
});

describe('concurrent credit notes', () => {
  it('10 at once on an open invoice never credit more than it', async () => {
    const invoice = await openInvoice(2000);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => credit({ invoice: invoice.id, amount: 300, reason: 'duplicate' })),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([...Array(6).fill(201), ...Array(4).fill(400)]);
    for (const refused of answers.filter((answer) => answer.status === 400))
      expect(refused.body.error).toMatchObject({ param: 'amount', code: 'amount_exceeds_creditable' });
    expect(await invoiceOf(invoice.id)).toMatchObject({ amount_due: 200, pre_payment_credit_notes_amount: 1800 });
    const numbers = answers.filter((answer) => answer.status === 201).map((answer) => answer.body.number);
    expect(new Set(numbers).size).toBe(6);
  });

  it("10 at once on a paid invoice to the customer's balance never credit more than it collected", async () => {
    const { customer } = await customerWithCard(api);
    const invoice = await paidInvoice(2000, customer.id);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        credit({ invoice: invoice.id, amount: 700, reason: 'duplicate', refund_to: 'customer_balance' }),
      ),
    );
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(2);
    expect(answers.filter((answer) => answer.status === 400)).toHaveLength(8);
    expect((await customerOf(customer.id)).balance).toBe(-1400);
    expect((await invoiceOf(invoice.id)).post_payment_credit_notes_amount).toBe(1400);
  });
});

/**
 * One step of the property test: credit while open, pay, credit once paid (any destination), refund.
 * Each is what a merchant may send at any time; refusals (400, 409) are part of the property.
 */
type Step =
  | { kind: 'credit'; amount: number; refundTo?: 'card' | 'customer_balance' | 'outside' }
  | { kind: 'pay' }
  | { kind: 'refund'; amount: number };

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('credit' as const),
    amount: fc.integer({ min: 1, max: 1200 }),
    refundTo: fc.option(fc.constantFrom('card' as const, 'customer_balance' as const, 'outside' as const), {
      nil: undefined,
    }),
  }),
  fc.constant({ kind: 'pay' as const }),
  fc.record({ kind: fc.constant('refund' as const), amount: fc.integer({ min: 1, max: 1200 }) }),
);

describe('property: credits plus payments never exceed the invoice total', () => {
  it('holds for any sequence of credit notes, payments and refunds (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 3000 }),
        fc.integer({ min: 0, max: 1500 }),
        fc.array(stepArbitrary, { minLength: 1, maxLength: 6 }),
        async (total, startingCredit, steps) => {
          const { customer } = await customerWithCard(api);
          if (startingCredit > 0) {
            // Credit to start with, from an earlier invoice credited back to the balance.
            const earlier = await paidInvoice(startingCredit, customer.id);
            expectStatus(
              await credit({
                invoice: earlier.id,
                amount: startingCredit,
                reason: 'duplicate',
                refund_to: 'customer_balance',
              }),
              201,
            );
          }
          const invoice = await openInvoice(total, customer.id);
          for (const step of steps) {
            const answer =
              step.kind === 'credit'
                ? await credit({
                    invoice: invoice.id,
                    amount: step.amount,
                    reason: 'order_change',
                    ...(step.refundTo ? { refund_to: step.refundTo } : {}),
                  })
                : step.kind === 'pay'
                  ? await api.put(`/invoices/${invoice.id}`)
                  : await api.post(`/invoices/${invoice.id}/refund`, { amount: step.amount });
            expect([200, 201, 400, 409]).toContain(answer.status);

            // An independent account of the invoice, from its credit notes and transactions.
            const now = await invoiceOf(invoice.id);
            const notes = expectStatus(await api.get(`/credit-notes?invoice=${invoice.id}&take=100`), 200).data;
            const issued = notes.filter((note: any) => note.status === 'issued');
            const sum = (rows: any[]) => rows.reduce((total: number, row: any) => total + row.amount, 0);
            const pre = sum(issued.filter((note: any) => note.type === 'pre_payment'));
            const post = sum(issued.filter((note: any) => note.type === 'post_payment'));
            const txns = expectStatus(await api.get(`/invoices/${invoice.id}/transactions?take=100`), 200).data;
            const succeeded = (type: string) =>
              sum(txns.filter((txn: any) => txn.type === type && txn.status === 'succeeded'));
            const paidByCard = succeeded('payment');
            const refunded = 0 - succeeded('refund');
            const cardNotes = sum(issued.filter((note: any) => note.refund_to === 'card'));
            const plainRefunds = refunded - cardNotes;

            expect(now.pre_payment_credit_notes_amount).toBe(pre);
            expect(now.post_payment_credit_notes_amount).toBe(post);
            expect(now.amount_paid).toBe(paidByCard);
            expect(now.amount_refunded).toBe(refunded);
            // Credits plus what was collected never exceed the total ...
            expect(pre + now.applied_balance + paidByCard).toBeLessThanOrEqual(total);
            expect(pre + post).toBeLessThanOrEqual(total);
            // ... and nothing is given back twice: refunds never pass the card payments, and what
            // post-payment credit notes and plain refunds gave back never passes what was collected.
            expect(refunded).toBeLessThanOrEqual(paidByCard);
            expect(post + plainRefunds).toBeLessThanOrEqual(paidByCard + now.applied_balance);
            expect(now.amount_due).toBe(total - now.applied_balance - pre);
            if (now.status === 'paid') expect(now.amount_paid).toBe(now.amount_due);
          }
        },
      ),
      { numRuns: 25 },
    );
  }, 240_000);
});
