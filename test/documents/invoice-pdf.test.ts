import { renderInvoicePdf } from '../../src/documents/invoice-pdf';
import { loadInvoiceDocument } from '../../src/documents/invoice-document.service';
import { expectStatus, startTwoAccountApp, type ApiClient, type TestApp } from '../support/harness';
import { addPaymentMethod, cardBody, CARDS, createTaxRate } from '../support/payments';
import { customerWithAddresses, fetchPdf, pdfText } from '../support/pdf';

let app: TestApp;
let api: ApiClient;
let apiKey: string;
let accountId: string;
let other: ApiClient;

beforeAll(async () => {
  ({ app, api, apiKey, accountId, other } = await startTwoAccountApp('Analytical Engines Ltd'));
});

afterAll(() => app.close());

/** GET /invoices/{id}/pdf read as bytes. */
const getPdf = (invoiceId: string) => fetchPdf(`${app.baseUrl}/invoices/${invoiceId}/pdf`, { 'cc-api-key': apiKey });

async function taxedInvoice() {
  const customer = expectStatus(await api.post('/customers', customerWithAddresses), 201, 'POST /customers');
  const vat = await createTaxRate(api, 20, false);
  const included = await createTaxRate(api, 8.25, true);
  const invoice = expectStatus(
    await api.post('/invoices', {
      customer: customer.id,
      collection_method: 'send_invoice',
      due_date: Math.floor(Date.now() / 1000) + 30 * 86400,
      lines: [
        { description: 'Difference engine, hand-cranked', amount: 125000, quantity: 2, tax: [vat.id] },
        { description: 'Punched cards (box of 500)', amount: 1999, quantity: 3, tax: [included.id] },
      ],
    }),
    201,
    'POST /invoices',
  );
  return { customer, invoice, vat, included };
}

describe('GET /invoices/{id}/pdf', () => {
  it("answers the finalized invoice's PDF: number, dates, lines, taxes per rate, totals, paid and due, both parties and shipping", async () => {
    const { invoice, vat, included } = await taxedInvoice();
    const finalized = expectStatus(await api.post(`/invoices/${invoice.id}/finalize`), 200, 'finalize');
    const answer = await getPdf(invoice.id);
    expect(answer.status).toBe(200);
    expect(answer.type).toBe('application/pdf');
    expect(answer.disposition).toBe(`inline; filename="${finalized.number}.pdf"`);
    expect(answer.body.subarray(0, 5).toString()).toBe('%PDF-');
    const text = await pdfText(answer.body);
    for (const expected of [
      finalized.number,
      'Analytical Engines Ltd',
      'Bill to',
      'Ada Lovelace',
      '12 St James Square',
      'London, SW1Y 4JH',
      'ada@example.com',
      'Ship to',
      'Ada at the Lab',
      '5 Analytical Row',
      'Unit 3',
      'Manchester, M1 1AE',
      'Date of issue',
      'Date due',
      'Difference engine, hand-cranked',
      '$1,250.00',
      'Punched cards (box of 500)',
      vat.display_name,
      `${included.display_name} (included)`,
      'Subtotal',
      'Total',
      'Amount paid',
      'Amount due',
    ])
      expect(text).toContain(expected);
    // The test rates are named 'Tax 20%': the percentage is not repeated.
    expect(text).not.toContain('Tax 20% 20%');
    const money = (cents: number) => `$${(cents / 100).toLocaleString('en-US', { minimumFractionDigits: 2 })}`;
    expect(text).toContain(money(finalized.total));
    expect(text).toContain(money(finalized.total_tax_amounts[0].amount));
    expect(text).toContain(money(finalized.total_tax_amounts[1].amount));
    expect(text).toContain(`${money(finalized.amount_remaining)} due`);
  });

  it('a paid invoice says what was paid and when', async () => {
    const customer = expectStatus(await api.post('/customers', customerWithAddresses), 201, 'POST /customers');
    await addPaymentMethod(api, customer.id, cardBody(CARDS.succeeds));
    const invoice = expectStatus(
      await api.post('/invoices', { customer: customer.id, lines: [{ description: 'Lecture', amount: 4200 }] }),
      201,
      'POST /invoices',
    );
    const paid = expectStatus(await api.put(`/invoices/${invoice.id}`), 200, 'pay');
    expect(paid.status).toBe('paid');
    const text = await pdfText((await getPdf(invoice.id)).body);
    expect(text).toContain('$42.00 paid on');
    expect(text).toMatch(/Amount paid\s*\$42\.00/);
    expect(text).toMatch(/Amount due\s*\$0\.00/);
  });

  it('a draft has no document (409 invoice_not_finalized); another account and an unknown id get 404', async () => {
    const { invoice } = await taxedInvoice();
    const draft = await api.get(`/invoices/${invoice.id}/pdf`);
    expect(draft.status).toBe(409);
    expect(draft.body.error.code).toBe('invoice_not_finalized');
    expectStatus(await api.post(`/invoices/${invoice.id}/finalize`), 200, 'finalize');
    expect((await getPdf(invoice.id)).status).toBe(200);
    const foreign = await other.get(`/invoices/${invoice.id}/pdf`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('resource_missing');
    expect((await api.get('/invoices/00000000-0000-4000-8000-000000000000/pdf')).status).toBe(404);
    expect((await api.get('/invoices/not-a-uuid/pdf')).status).toBe(404);
  });

  it('is in /openapi.json as application/pdf', async () => {
    const document = (await (await fetch(`${app.baseUrl}/openapi.json`)).json()) as any;
    const operation = document.paths['/invoices/{id}/pdf'].get;
    expect(Object.keys(operation.responses['200'].content)).toEqual(['application/pdf']);
    expect(operation.responses['409']).toBeDefined();
  });

  it('a long invoice flows over several pages, each line drawn once', async () => {
    const customer = expectStatus(await api.post('/customers', customerWithAddresses), 201, 'POST /customers');
    const lines = Array.from({ length: 60 }, (_, i) => ({ description: `Item number ${i + 1}`, amount: 100 + i }));
    const invoice = expectStatus(await api.post('/invoices', { customer: customer.id, lines }), 201, 'POST /invoices');
    expectStatus(await api.post(`/invoices/${invoice.id}/finalize`), 200, 'finalize');
    const document = await loadInvoiceDocument(app.prisma, accountId, invoice.id);
    const pdf = await renderInvoicePdf(document);
    const text = await pdfText(pdf);
    for (let i = 1; i <= 60; i++) expect(text.match(new RegExp(`Item number ${i}\\b`, 'g'))).toHaveLength(1);
    expect(text).toContain('Amount due');
  });
});
