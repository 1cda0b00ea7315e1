import { createEmailActivities } from '../../activities/emails';
import { emailWorkflowId } from '../../src/emails/email-trigger';
import { createMailer } from '../../src/emails/mailer';
import { invoiceEmail } from '../../src/emails/email-content';
import { loadInvoiceDocument } from '../../src/documents/invoice-document.service';
import { apiClient, createTestAccount, eventsOf, expectStatus } from '../support/harness';
import { expectCursorWalk } from '../support/cursor-lists';
import { newId } from '../../src/lib/ids';
import { addPaymentMethod, cardBody, CARDS } from '../support/payments';
import { recordWorkflowHistories, recurringPrice } from '../support/subscriptions';
import { historyView } from '../support/history';
import { customerWithAddresses, pdfText } from '../support/pdf';
import {
  caughtMessages,
  emailsOfInvoice,
  finalizeSendInvoice,
  startEmailWorld,
  waitUntil,
  type EmailWorld,
} from '../support/emails';

/**
 * Emails through the whole path: an invoice finalized writes its event, the relay starts the email's
 * workflow, its activity renders the invoice and its PDF and sends them over SMTP to this file's
 * catcher, which keeps what it received; GET /test-helpers/emails lists it for the account only.
 */
let world: EmailWorld;

beforeAll(async () => {
  world = await startEmailWorld();
});

afterAll(() => world.close());

function sendInvoice(to: string) {
  return finalizeSendInvoice(world.api, to);
}

async function caughtFor(to: string, api = world.api) {
  return expectStatus(
    await api.get(`/test-helpers/emails?to=${encodeURIComponent(to)}`),
    200,
    'GET /test-helpers/emails',
  );
}

async function invoiceEventTypes(invoiceId: string, accountId = world.accountId) {
  return (await eventsOf(world.app.prisma, accountId))
    .filter((event) => (event.data as { id?: string }).id === invoiceId)
    .map((event) => event.type);
}

describe('the invoice email', () => {
  it('a send_invoice invoice finalized: the catcher receives one email with its PDF, then invoice.sent is written', async () => {
    const to = 'ada+invoice@example.com';
    const { invoice } = await sendInvoice(to);
    const list = { data: await caughtMessages(world.api, to) };
    expect(list.data).toHaveLength(1);
    const message = list.data[0];
    expect(message).toMatchObject({
      object: 'test_email',
      kind: 'invoice',
      to: [to],
      subject: `Invoice ${invoice.number} from Lovelace Analytics`,
      attachments: [{ filename: `${invoice.number}.pdf`, content_type: 'application/pdf' }],
    });
    expect(message.from).toBe('billing@localhost');
    expect(message.message_id).toBe(`<${message.email}@localhost>`);
    for (const body of [message.html, message.text]) {
      expect(body).toContain('Lovelace Analytics');
      expect(body).toContain(invoice.number);
      expect(body).toContain('$576.00');
      expect(body).toContain('12 St James Square');
      expect(body).toContain('Ada at the Lab');
      expect(body).toContain('5 Analytical Row');
      // The invoice's hosted page, where the customer pays it (docs/decisions.md §29).
      expect(body).toContain(invoice.hosted_invoice_url);
    }
    // The attachment is the invoice's PDF: its text has the number and the total.
    const response = await fetch(`${world.app.baseUrl}/test-helpers/emails/${message.id}/attachments/0`, {
      headers: { 'cc-api-key': world.apiKey },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    // The same download through the contract check: the type answered is one /openapi.json documents.
    expectStatus(await world.api.get(`/test-helpers/emails/${message.id}/attachments/0`), 200, 'the attachment');
    const text = await pdfText(Buffer.from(await response.arrayBuffer()));
    expect(text).toContain(invoice.number);
    expect(text).toContain('$576.00');

    // invoice.sent once the server took it, after invoice.finalized, once.
    await waitUntil(async () => (await invoiceEventTypes(invoice.id)).includes('invoice.sent'));
    expect(await invoiceEventTypes(invoice.id)).toEqual(['invoice.created', 'invoice.finalized', 'invoice.sent']);
    const [email] = await emailsOfInvoice(world.app.prisma, invoice.id);
    expect(email).toMatchObject({
      status: 'sent',
      kind: 'invoice',
      toAddress: to,
      attempts: 1,
      customerId: invoice.customer,
    });
    expect(email!.id).toMatch(/^eml_[A-Za-z0-9]{24}$/);
    const result = await world.app.temporal.workflow.getHandle(emailWorkflowId(email!.eventId!)).result();
    expect(result).toEqual({ emailId: email!.id, status: 'sent' });
  });

  it('a retried activity does not send twice, nor write invoice.sent twice', async () => {
    const to = 'ada+retry@example.com';
    const { invoice } = await sendInvoice(to);
    await waitUntil(async () => (await invoiceEventTypes(invoice.id)).includes('invoice.sent'));
    const [email] = await emailsOfInvoice(world.app.prisma, invoice.id);
    // As Temporal runs it again when the worker died after the send and before reporting it.
    const activities = createEmailActivities({ prisma: world.app.prisma, mailer: world.mailer });
    expect(await activities.prepareEmail({ eventId: email!.eventId! })).toEqual({
      emailId: email!.id,
      kind: 'invoice',
    });
    expect(await activities.deliverEmail({ emailId: email!.id })).toBe('already_sent');
    expect(await activities.deliverEmail({ emailId: email!.id })).toBe('already_sent');
    expect((await caughtFor(to)).data).toHaveLength(1);
    expect((await invoiceEventTypes(invoice.id)).filter((type) => type === 'invoice.sent')).toHaveLength(1);
    expect(await world.app.prisma.email.count({ where: { invoiceId: invoice.id } })).toBe(1);
  });

  it('an SMTP server down: the attempt fails and is recorded, the retry sends it once, a repeat sends nothing', async () => {
    // An account whose events no relay takes: its email's steps are run here, as the workflow runs them.
    const account = await createTestAccount(world.app.prisma, { name: 'Unrelayed' });
    const api = apiClient(world.app.baseUrl, account.apiKey);
    const to = 'ada+down@example.com';
    const customer = expectStatus(
      await api.post('/customers', { ...customerWithAddresses, email: to }),
      201,
      'POST /customers',
    );
    const invoice = expectStatus(
      await api.post('/invoices', {
        customer: customer.id,
        collection_method: 'send_invoice',
        lines: [{ description: 'Bernoulli numbers, table', amount: 1500 }],
      }),
      201,
      'POST /invoices',
    );
    expectStatus(await api.post(`/invoices/${invoice.id}/finalize`), 200, 'finalize');
    const [finalized] = await eventsOf(world.app.prisma, account.accountId, 'invoice.finalized');
    const unreachable = createMailer('smtp://127.0.0.1:9');
    const down = createEmailActivities({ prisma: world.app.prisma, mailer: unreachable });
    const up = createEmailActivities({ prisma: world.app.prisma, mailer: world.mailer });
    const prepared = await down.prepareEmail({ eventId: finalized!.id });
    expect(prepared).toEqual({ emailId: expect.stringMatching(/^eml_/), kind: 'invoice' });
    expect(await up.prepareEmail({ eventId: finalized!.id })).toEqual(prepared);

    await expect(down.deliverEmail({ emailId: prepared!.emailId })).rejects.toThrow();
    unreachable.close();
    const failed = await world.app.prisma.email.findUniqueOrThrow({ where: { id: prepared!.emailId } });
    expect(failed).toMatchObject({ status: 'queued', attempts: 1 });
    expect(failed.lastResponse).toMatch(/ECONNREFUSED|connect/i);
    expect(await invoiceEventTypes(invoice.id, account.accountId)).toEqual(['invoice.created', 'invoice.finalized']);

    expect(await up.deliverEmail({ emailId: prepared!.emailId })).toBe('sent');
    expect(await up.deliverEmail({ emailId: prepared!.emailId })).toBe('already_sent');
    const sent = await world.app.prisma.email.findUniqueOrThrow({ where: { id: prepared!.emailId } });
    expect(sent).toMatchObject({ status: 'sent', attempts: 2 });
    const caught = expectStatus(await api.get(`/test-helpers/emails?to=${encodeURIComponent(to)}`), 200, 'list');
    expect(caught.data).toHaveLength(1);
    expect(caught.data[0].email).toBe(prepared!.emailId);
    expect(await invoiceEventTypes(invoice.id, account.accountId)).toEqual([
      'invoice.created',
      'invoice.finalized',
      'invoice.sent',
    ]);
  });

  it('switched off for the account: nothing is sent and no invoice.sent is written', async () => {
    await world.app.prisma.account.update({ where: { id: world.accountId }, data: { emailsOff: ['invoice'] } });
    try {
      const to = 'ada+off@example.com';
      const { invoice } = await sendInvoice(to);
      const handle = world.app.temporal.workflow.getHandle(
        emailWorkflowId(
          (await eventsOf(world.app.prisma, world.accountId, 'invoice.finalized')).find(
            (event) => (event.data as { id: string }).id === invoice.id,
          )!.id,
        ),
      );
      await waitUntil(() =>
        handle.describe().then(
          () => true,
          () => false,
        ),
      );
      expect(await handle.result()).toEqual({ emailId: null, status: 'none' });
      expect((await caughtFor(to)).data).toHaveLength(0);
      expect(await invoiceEventTypes(invoice.id)).toEqual(['invoice.created', 'invoice.finalized']);
    } finally {
      await world.app.prisma.account.update({ where: { id: world.accountId }, data: { emailsOff: [] } });
    }
  });
});

describe('the receipt', () => {
  it('an invoice paid: a receipt with the paid PDF; a charge_automatically finalization sends no invoice email', async () => {
    const to = 'ada+receipt@example.com';
    const { api } = world;
    const customer = expectStatus(
      await api.post('/customers', { ...customerWithAddresses, email: to }),
      201,
      'POST /customers',
    );
    await addPaymentMethod(api, customer.id, cardBody(CARDS.succeeds));
    const invoice = expectStatus(
      await api.post('/invoices', { customer: customer.id, lines: [{ description: 'Lecture notes', amount: 4200 }] }),
      201,
      'POST /invoices',
    );
    const paid = expectStatus(await api.put(`/invoices/${invoice.id}`), 200, 'pay');
    expect(paid.status).toBe('paid');
    const list = { data: await caughtMessages(world.api, to) };
    expect(list.data.map((message: { kind: string }) => message.kind)).toEqual(['receipt']);
    const [receipt] = list.data;
    expect(receipt.subject).toBe(`Receipt for invoice ${paid.number} from Lovelace Analytics`);
    expect(receipt.text).toContain('$42.00 paid');
    expect(receipt.html).toContain('$42.00 paid');
    expect(receipt.attachments).toEqual([
      { filename: `${paid.number}.pdf`, content_type: 'application/pdf', size: expect.any(Number) },
    ]);
    // Nothing more comes: the finalization of a charge_automatically invoice is not emailed.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect((await caughtFor(to)).data).toHaveLength(1);
    expect(await invoiceEventTypes(paid.id)).not.toContain('invoice.sent');
    // The email written queued in the first workflow task (a local activity), then sent by the one activity task.
    const [email] = await emailsOfInvoice(world.app.prisma, paid.id);
    const handle = world.app.temporal.workflow.getHandle(emailWorkflowId(email!.eventId!));
    expect(await handle.result()).toEqual({ emailId: email!.id, status: 'sent' });
    const view = await historyView(handle);
    expect(view.activities.map(({ type, local }) => ({ type, local }))).toEqual([
      { type: 'prepareEmail', local: true },
      { type: 'deliverEmail', local: false },
    ]);
    expect(view.workflowTasks).toBe(2);
    await recordWorkflowHistories(world.app.temporal, handle.workflowId, 'email-receipt-local-prepare');
  });
});

describe('the failed payment', () => {
  it("a subscription's charge declined: a notice without attachment; no invoice email for charge_automatically", async () => {
    const to = 'ada+declined@example.com';
    const { api } = world;
    const customer = expectStatus(
      await api.post('/customers', { ...customerWithAddresses, email: to }),
      201,
      'POST /customers',
    );
    const method = await addPaymentMethod(api, customer.id, cardBody(CARDS.declined));
    const subscription = expectStatus(
      await api.post('/subscriptions', {
        customer: customer.id,
        items: [{ price: await recurringPrice(api), quantity: 1 }],
        trial_days: 0,
        start_date: Math.floor(Date.now() / 1000),
        default_payment_method: method.id,
      }),
      201,
      'POST /subscriptions',
    );
    const [notice] = await caughtMessages(api, to);
    const invoice = expectStatus(await api.get(`/invoices/${subscription.latest_invoice}`), 200, 'invoice');
    expect(notice).toMatchObject({
      kind: 'payment_failed',
      subject: `Payment failed for invoice ${invoice.number} from Lovelace Analytics`,
      attachments: [],
    });
    expect(notice.text).toContain('could not be charged');
    expect(notice.text).toContain('update your payment method');
    // Its one link is the invoice's hosted page, where the customer pays it with another card (saved for them).
    expect([...notice.html.matchAll(/<a href="([^"]+)"/g)].map((match) => match[1])).toEqual([
      invoice.hosted_invoice_url,
    ]);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect((await caughtFor(to)).data).toHaveLength(1);
  });
});

describe('links', () => {
  it('the invoice email shows the hosted invoice link when given, the failed-payment one the card update link, escaped', async () => {
    const { invoice } = await finalizeSendInvoice(world.api, 'ada+links@example.com');
    const document = await loadInvoiceDocument(world.app.prisma, world.accountId, invoice.id);
    const hosted = 'https://pay.example/i/abc?x=1&y=2';
    const withLink = invoiceEmail('invoice', document, { hostedInvoiceUrl: hosted });
    expect(withLink.html).toContain('href="https://pay.example/i/abc?x=1&#38;y=2"');
    expect(withLink.html).toContain('View and pay invoice');
    expect(withLink.text).toContain(`View and pay invoice: ${hosted}`);
    expect(invoiceEmail('invoice', document).html).not.toContain('<a ');
    const notice = invoiceEmail('payment_failed', document, { updatePaymentMethodUrl: 'https://pay.example/card' });
    expect(notice.text).toContain('Update payment method: https://pay.example/card');
  });
});

describe('GET /emails', () => {
  it("lists an invoice's and a customer's emails with their status; another account's are 404 and never listed", async () => {
    const to = 'ada+timeline@example.com';
    const { customer, invoice } = await sendInvoice(to);
    await waitUntil(async () => (await invoiceEventTypes(invoice.id)).includes('invoice.sent'));
    const timeline = expectStatus(await world.api.get(`/emails?invoice=${invoice.id}`), 200, 'GET /emails');
    expect(timeline.data).toEqual([
      expect.objectContaining({
        object: 'email',
        kind: 'invoice',
        to,
        status: 'sent',
        invoice: invoice.id,
        customer: customer.id,
        attempts: 1,
        subject: `Invoice ${invoice.number} from Lovelace Analytics`,
        sent_at: expect.any(Number),
        failed_at: null,
      }),
    ]);
    const [email] = timeline.data;
    expect(expectStatus(await world.api.get(`/emails?customer=${customer.id}`), 200, 'by customer').data).toEqual([
      email,
    ]);
    expect(expectStatus(await world.api.get(`/emails/${email.id}`), 200, 'GET /emails/{id}')).toEqual(email);
    expect((await world.other.get(`/emails/${email.id}`)).status).toBe(404);
    expect(expectStatus(await world.other.get(`/emails?invoice=${invoice.id}`), 200, 'other').data).toEqual([]);
    expect(expectStatus(await world.other.get(`/emails?customer=${customer.id}`), 200, 'other').data).toEqual([]);
    expect((await world.api.get('/emails?invoice=nope')).body.error.param).toBe('invoice');
  });

  it('pages by cursor as by offset; another account cannot use the cursors', async () => {
    const { invoice } = await sendInvoice('ada+cursor@example.com');
    await waitUntil(async () => (await invoiceEventTypes(invoice.id)).includes('invoice.sent'));
    await expectCursorWalk(world.api, world.other, '/emails', newId('email'));
  });
});

describe('other accounts', () => {
  it("see none of the account's emails, and their attachments answer 404", async () => {
    const to = 'ada+private@example.com';
    await sendInvoice(to);
    const mine = { data: await caughtMessages(world.api, to) };
    expect((await caughtFor(to, world.other)).data).toHaveLength(0);
    expect(expectStatus(await world.other.get('/test-helpers/emails'), 200, 'list').data).toEqual([]);
    const foreign = await world.other.get(`/test-helpers/emails/${mine.data[0].id}/attachments/0`);
    expect(foreign.status).toBe(404);
    expect((await world.api.get(`/test-helpers/emails/${mine.data[0].id}/attachments/5`)).status).toBe(404);
    expect((await world.api.get('/test-helpers/emails/msg_99999999999/attachments/0')).status).toBe(404);
    expect((await world.api.get('/test-helpers/emails?to=not-an-email')).status).toBe(400);
  });
});
