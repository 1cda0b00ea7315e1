import { eventsOf, expectStatus } from '../support/harness';
import { caughtMessages, startEmailWorld, waitUntil, type EmailWorld } from '../support/emails';

/**
 * POST /invoices/{id}/send: an open or paid invoice emailed to its customer on request, through the email's
 * own workflow to this file's SMTP catcher; once per Idempotency-Key, refused for drafts, void invoices and
 * customers without an address, and another account's invoice is unknown.
 */
let world: EmailWorld;

beforeAll(async () => {
  world = await startEmailWorld();
});

afterAll(() => world.close());

/** An open charge_automatically invoice (finalizing it sends nothing) of a new customer with email `to`. */
async function openInvoice(to: string | undefined, api = world.api) {
  const customer = expectStatus(
    await api.post('/customers', { name: 'Ada Lovelace', ...(to ? { email: to } : {}) }),
    201,
  );
  const draft = expectStatus(
    await api.post('/invoices', { customer: customer.id, lines: [{ description: 'Tune-up', amount: 12500 }] }),
    201,
  );
  return { customer, draft, invoice: expectStatus(await api.post(`/invoices/${draft.id}/finalize`), 200) };
}

const sentEvents = async (invoiceId: string) =>
  (await eventsOf(world.app.prisma, world.accountId, 'invoice.sent')).filter(
    (event) => (event.data as { id: string }).id === invoiceId,
  );

describe('POST /invoices/{id}/send', () => {
  it('emails the invoice with its PDF once per Idempotency-Key, answered 202 queued and followed to sent', async () => {
    const to = 'ada+send@example.com';
    const { invoice } = await openInvoice(to);
    // Finalizing a charge_automatically invoice emails nothing: what arrives below is the send's.
    const key = { 'idempotency-key': 'send-once-1' };
    const [first, second] = await Promise.all([
      world.api.post(`/invoices/${invoice.id}/send`, {}, key),
      world.api.post(`/invoices/${invoice.id}/send`, {}, key),
    ]);
    const answered = [first, second].filter((answer) => answer.status === 202);
    expect(answered.length).toBeGreaterThanOrEqual(1);
    // The other of the two at once is told the key is in use, or answered the same email again.
    for (const answer of [first, second])
      if (answer.status !== 202) expect(answer.body.error.code).toBe('idempotency_key_in_use');
    const email = answered[0]!.body;
    expect(email).toMatchObject({
      object: 'email',
      kind: 'invoice',
      to,
      subject: `Invoice ${invoice.number} from Lovelace Analytics`,
      status: 'queued',
      invoice: invoice.id,
      customer: invoice.customer,
      event: null,
    });
    const replay = await world.api.post(`/invoices/${invoice.id}/send`, {}, key);
    expect(replay.status).toBe(202);
    expect(replay.body.id).toBe(email.id);

    const sent = await waitUntil(async () => {
      const read = expectStatus(await world.api.get(`/emails/${email.id}`), 200);
      return read.status === 'sent' && read;
    });
    expect(sent.sent_at).toEqual(expect.any(Number));
    const messages = await caughtMessages(world.api, to);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({
      email: email.id,
      kind: 'invoice',
      attachments: [{ filename: `${invoice.number}.pdf`, content_type: 'application/pdf' }],
    });
    await waitUntil(async () => (await sentEvents(invoice.id)).length === 1);

    // Asked again with another key (or none), it is another email: the merchant sends a reminder.
    const again = expectStatus(await world.api.post(`/invoices/${invoice.id}/send`, {}), 202);
    expect(again.id).not.toBe(email.id);
    await waitUntil(async () => (await caughtMessages(world.api, to)).length === 2);
    expect(expectStatus(await world.api.get(`/emails?invoice=${invoice.id}`), 200).data).toHaveLength(2);
  });

  it('sends a paid invoice too; refuses a draft, a void invoice and a customer without an address (409), nothing queued', async () => {
    const paid = await openInvoice('grace+paid@example.com');
    expectStatus(
      await world.api.post('/credit-notes', { invoice: paid.invoice.id, amount: 12500, reason: 'order_change' }),
      201,
    );
    expect(expectStatus(await world.api.get(`/invoices/${paid.invoice.id}`), 200).status).toBe('paid');
    expect(expectStatus(await world.api.post(`/invoices/${paid.invoice.id}/send`), 202).to).toBe(
      'grace+paid@example.com',
    );

    const draft = expectStatus(
      await world.api.post('/invoices', {
        customer: paid.customer.id,
        lines: [{ description: 'Not yet', amount: 100 }],
      }),
      201,
    );
    expect(expectStatus(await world.api.post(`/invoices/${draft.id}/send`), 409).error.code).toBe(
      'invoice_not_finalized',
    );

    const voided = await openInvoice('grace+void@example.com');
    expectStatus(await world.api.delete(`/invoices/${voided.invoice.id}`), 200);
    expect(expectStatus(await world.api.post(`/invoices/${voided.invoice.id}/send`), 409).error.code).toBe(
      'invoice_void',
    );

    const silent = await openInvoice(undefined);
    expect(expectStatus(await world.api.post(`/invoices/${silent.invoice.id}/send`), 409).error).toMatchObject({
      code: 'customer_email_missing',
      message: expect.stringContaining('has an email address'),
    });
    // The customer's address added after finalization is used (the invoice's copy has none).
    expectStatus(await world.api.patch(`/customers/${silent.customer.id}`, { email: 'late@example.com' }), 200);
    expect(expectStatus(await world.api.post(`/invoices/${silent.invoice.id}/send`), 202).to).toBe('late@example.com');

    for (const id of [draft.id, voided.invoice.id])
      expect(expectStatus(await world.api.get(`/emails?invoice=${id}`), 200).data).toEqual([]);
  });

  it("another account's invoice is unknown (404) and gets no email; an unknown id is 404 too", async () => {
    const theirs = await openInvoice('theirs@example.com', world.other);
    expect(expectStatus(await world.api.post(`/invoices/${theirs.invoice.id}/send`), 404).error.type).toBe('not_found');
    expectStatus(await world.api.post('/invoices/00000000-0000-4000-8000-000000000000/send'), 404);
    expect(expectStatus(await world.other.get(`/emails?invoice=${theirs.invoice.id}`), 200).data).toEqual([]);
  });
});
