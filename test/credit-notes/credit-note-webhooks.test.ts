import { creditNoteSchema } from '../../src/credit-notes/credit-note.schemas';
import { customerSchema } from '../../src/customers/customer.schemas';
import { invoiceSchema } from '../../src/invoices/invoice.schemas';
import { WEBHOOK_EVENTS } from '../../src/webhooks/event-catalog';
import { apiClient, createTestAccount, expectStatus } from '../support/harness';
import { customerWithCard, simpleInvoice } from '../support/payments';
import { startWebhookStack, type WebhookStack } from '../support/webhooks';

// The events credit notes add (docs/api.md, Webhooks: event types) are delivered like the contract's:
// through the outbox, the relay and a delivery workflow, signed, to a real HTTP receiver.

let stack: WebhookStack;

beforeAll(async () => {
  stack = await startWebhookStack('credit-note-webhooks');
}, 60_000);

afterAll(() => stack?.close());

it('delivers credit_note.created, invoice.updated and customer.updated with the documented data', async () => {
  const account = await createTestAccount(stack.app.prisma, { name: 'Credit webhooks' });
  stack.accounts.push(account.accountId);
  const api = apiClient(stack.app.baseUrl, account.apiKey);
  expectStatus(await api.post('/webhook/destination', { url: stack.receiver.url }), 201);

  const { customer } = await customerWithCard(api);
  const open = expectStatus(
    await api.post(`/invoices/${(await simpleInvoice(api, customer.id, 3000)).id}/finalize`),
    200,
  );
  const lowered = expectStatus(
    await api.post('/credit-notes', { invoice: open.id, amount: 1000, reason: 'order_change' }),
    201,
  );
  const paid = expectStatus(await api.put(`/invoices/${(await simpleInvoice(api, customer.id, 2000)).id}`), 200);
  const toBalance = expectStatus(
    await api.post('/credit-notes', {
      invoice: paid.id,
      amount: 500,
      reason: 'duplicate',
      refund_to: 'customer_balance',
    }),
    201,
  );

  const isAbout = (type: string, id: string) => (request: { json: any }) =>
    request.json?.event === type && request.json?.data?.id === id;
  const [created] = await stack.receiver.waitFor(1, { filter: isAbout('credit_note.created', lowered.id) });
  expect(created!.json.data).toEqual(lowered);
  expect(created!.headers['cc-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
  const [updated] = await stack.receiver.waitFor(1, { filter: isAbout('invoice.updated', open.id) });
  expect(updated!.json.data).toMatchObject({ amount_due: 2000, pre_payment_credit_notes_amount: 1000 });
  await stack.receiver.waitFor(1, { filter: isAbout('credit_note.created', toBalance.id) });
  const [balance] = await stack.receiver.waitFor(1, { filter: isAbout('customer.updated', customer.id) });
  expect(balance!.json.data).toMatchObject({ balance: -500, balance_currency: 'USD' });

  // Each payload is what the event catalog (and so /openapi.json's webhooks) documents.
  for (const [type, schema] of [
    ['credit_note.created', creditNoteSchema],
    ['invoice.updated', invoiceSchema],
    ['customer.updated', customerSchema],
  ] as const) {
    expect(WEBHOOK_EVENTS.get(type)?.data).toBe(schema);
    for (const request of stack.receiver.received.filter((each) => each.json?.event === type))
      expect(schema.safeParse(request.json.data).success).toBe(true);
  }
}, 60_000);
