import { expectStatus, startTwoAccountApp, type ApiClient, type TestApp } from '../support/harness';
import { addPaymentMethod, cardBody, CARDS } from '../support/payments';
import { customerWithAddresses, fetchPdf, pdfText } from '../support/pdf';
import { hostedPath, pageText } from '../hosted-pages/pages';

// The credit note's PDF (docs/api.md "Credit notes"), read back as text with pdf-parse, and its link
// from the invoice's hosted page (docs/decisions.md §29).

let app: TestApp;
let api: ApiClient;
let apiKey: string;
let other: ApiClient;

beforeAll(async () => {
  ({ app, api, apiKey, other } = await startTwoAccountApp('Difference Engines Ltd'));
});

afterAll(() => app.close());

/** A PDF of the app at `path`, with the API key unless `headers` say otherwise (the hosted page's links take none). */
const getPdf = (path: string, headers: Record<string, string> = { 'cc-api-key': apiKey }) =>
  fetchPdf(`${app.baseUrl}${path}`, headers);

/** POST /credit-notes, answered 201. */
const credit = async (body: Record<string, unknown>) =>
  expectStatus(await api.post('/credit-notes', body), 201, 'POST /credit-notes');

/** A two-line invoice of the customer with addresses, paid by card. */
async function paidInvoice() {
  const customer = expectStatus(await api.post('/customers', customerWithAddresses), 201, 'POST /customers');
  const method = await addPaymentMethod(api, customer.id, cardBody(CARDS.succeeds));
  const draft = expectStatus(
    await api.post('/invoices', {
      customer: customer.id,
      lines: [
        { description: 'Analytical engine, steam', amount: 40000, quantity: 1 },
        { description: 'Punched cards (box of 500)', amount: 1500, quantity: 4 },
      ],
    }),
    201,
  );
  const paid = expectStatus(await api.put(`/invoices/${draft.id}`, { payment_method: method.id }), 200, 'pay');
  expect(paid.status).toBe('paid');
  return paid;
}

describe('GET /credit-notes/{id}/pdf', () => {
  it('shows the number, date, invoice credited, lines, reason, amounts and where the money went', async () => {
    const invoice = await paidInvoice();
    const cardsLine = invoice.lines[1];
    const note = await credit({
      invoice: invoice.id,
      lines: [{ invoice_line: cardsLine.id, quantity: 2 }],
      reason: 'product_unsatisfactory',
      refund_to: 'card',
      memo: 'Two boxes arrived bent',
    });
    const answer = await getPdf(`/credit-notes/${note.id}/pdf`);
    expect(answer.status).toBe(200);
    expect(answer.type).toBe('application/pdf');
    expect(answer.disposition).toBe(`inline; filename="${note.number}.pdf"`);
    const text = await pdfText(answer.body);
    for (const expected of [
      'Credit note',
      'Difference Engines Ltd',
      'Credit note number',
      note.number,
      'Date of issue',
      'Invoice credited',
      invoice.number,
      'Reason',
      'Product unsatisfactory',
      'Refunded to the card that paid the invoice',
      'Two boxes arrived bent',
      'Ada Lovelace',
      '12 St James Square',
      'Punched cards (box of 500)',
      '$30.00',
      `Invoice ${invoice.number} total`,
      '$460.00',
      '$30.00 credited',
    ])
      expect(text).toContain(expected);
  });

  it("says a credit to the customer's balance, outside, or off an open invoice's amount due", async () => {
    const first = await paidInvoice();
    const balance = await credit({
      invoice: first.id,
      amount: 2500,
      reason: 'order_change',
      refund_to: 'customer_balance',
    });
    const outside = await credit({ invoice: first.id, amount: 1000, reason: 'duplicate', refund_to: 'outside' });
    const customer = expectStatus(await api.post('/customers', { name: 'Open Books' }), 201);
    const draft = expectStatus(
      await api.post('/invoices', { customer: customer.id, lines: [{ description: 'Audit', amount: 9000 }] }),
      201,
    );
    const open = expectStatus(await api.post(`/invoices/${draft.id}/finalize`), 200);
    const prePayment = await credit({ invoice: open.id, amount: 4000, reason: 'order_change' });
    const read = async (id: string) => pdfText((await getPdf(`/credit-notes/${id}/pdf`)).body);
    const balanceText = await read(balance.id);
    expect(balanceText).toContain("Credited to the customer's balance, for their next invoices");
    expect(balanceText).toContain('$25.00 credited');
    expect(balanceText).toContain(`Credit on invoice ${first.number}`);
    expect(balanceText).toContain('Order change');
    const outsideText = await read(outside.id);
    expect(outsideText).toContain('Given back outside this service');
    expect(outsideText).toContain('Duplicate');
    const openText = await read(prePayment.id);
    expect(openText).toContain("Deducted from the invoice's amount due");
    expect(openText).toContain('Invoice amount due now');
    expect(openText).toContain('$50.00');
  });

  it("answers 404 for another account's credit note and an unknown one", async () => {
    const invoice = await paidInvoice();
    const note = await credit({ invoice: invoice.id, amount: 500, reason: 'duplicate', refund_to: 'outside' });
    expect((await other.get(`/credit-notes/${note.id}/pdf`)).status).toBe(404);
    expect((await api.get('/credit-notes/cn_000000000000000000000000/pdf')).status).toBe(404);
    expect((await api.get('/credit-notes/nonsense/pdf')).status).toBe(404);
  });
});

describe("the invoice's hosted page", () => {
  it('lists its credit notes with a link to each PDF, only when it has some', async () => {
    const invoice = await paidInvoice();
    const path = hostedPath(invoice);
    expect(await pageText(await fetch(`${app.baseUrl}${path}`))).not.toContain('Credit notes');
    const note = await credit({
      invoice: invoice.id,
      amount: 1200,
      reason: 'order_change',
      refund_to: 'customer_balance',
    });
    const page = await pageText(await fetch(`${app.baseUrl}${path}`));
    expect(page).toContain('Credit notes');
    expect(page).toContain(`href="${path}/credit-notes/${note.id}/pdf"`);
    expect(page).toContain('Credited to the customer&#39;s balance');
    const pdf = await getPdf(`${path}/credit-notes/${note.id}/pdf`, {});
    expect(pdf.status).toBe(200);
    expect(pdf.type).toBe('application/pdf');
    expect(await pdfText(pdf.body)).toContain(note.number);
    // Another invoice's credit note is not reachable under this page's token.
    const otherInvoice = await paidInvoice();
    const otherNote = await credit({
      invoice: otherInvoice.id,
      amount: 100,
      reason: 'duplicate',
      refund_to: 'outside',
    });
    expect((await getPdf(`${path}/credit-notes/${otherNote.id}/pdf`, {})).status).toBe(404);
  });
});
