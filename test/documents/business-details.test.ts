import fs from 'node:fs';
import { createApiKey } from '../../src/accounts/account.service';
import { loadInvoiceDocument } from '../../src/documents/invoice-document.service';
import { invoiceEmail } from '../../src/emails/email-content';
import {
  apiClient,
  auditEntriesOf,
  createTestAccount,
  expectStatus,
  type ApiClient,
  type TestApp,
} from '../support/harness';
import { startTestApp } from '../support/harness';
import { addPaymentMethod, cardBody, CARDS } from '../support/payments';
import { customerWithAddresses, fetchPdf, pdfText } from '../support/pdf';
import { hostedPath, pageText } from '../hosted-pages/pages';

/**
 * The seller's business details (docs/api.md, "Business details"): GET|PUT /settings/business-details (any role
 * reads, a superadmin writes, refusals name the field and change nothing, one account's details are its own,
 * every change audited), and where customers read them: the invoice's account_* fields, its PDF, a credit
 * note's PDF, the hosted invoice page and the invoice email, as the invoice was issued.
 */
let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.close());

async function newAccount(name: string) {
  const { accountId, apiKey } = await createTestAccount(app.prisma, { name, role: 'superadmin' });
  const keyOf = async (role: 'standard' | 'developer') =>
    apiClient(app.baseUrl, (await createApiKey(app.prisma, accountId, role)).api_key);
  return {
    accountId,
    apiKey,
    superadmin: apiClient(app.baseUrl, apiKey),
    developer: await keyOf('developer'),
    standard: await keyOf('standard'),
  };
}

const DETAILS = {
  legal_name: 'Analytical Engines Ltd',
  address: { line1: '1 Dorset Street', city: 'London', postal_code: 'W1U 4EG', country: 'GB' },
  support_email: 'billing@engines.example',
  support_phone: '+44 20 7946 0000',
  tax_id: 'GB123456789',
};

const EMPTY = {
  object: 'business_details',
  legal_name: null,
  address: null,
  support_email: null,
  support_phone: null,
  tax_id: null,
};

/** A paid two-line invoice of a customer with addresses. */
async function paidInvoice(client: ApiClient) {
  const customer = expectStatus(await client.post('/customers', customerWithAddresses), 201, 'POST /customers');
  const method = await addPaymentMethod(client, customer.id, cardBody(CARDS.succeeds));
  const draft = expectStatus(
    await client.post('/invoices', {
      customer: customer.id,
      lines: [{ description: 'Analytical engine, steam', amount: 40000, quantity: 1 }],
    }),
    201,
  );
  return expectStatus(await client.put(`/invoices/${draft.id}`, { payment_method: method.id }), 200, 'pay');
}

describe('GET|PUT /settings/business-details', () => {
  it('answers nulls for a new account to every role; a superadmin sets and clears fields, the rest stays', async () => {
    const account = await newAccount('Fresh');
    for (const client of [account.superadmin, account.developer, account.standard])
      expect(expectStatus(await client.get('/settings/business-details'), 200)).toEqual(EMPTY);

    expect(expectStatus(await account.superadmin.put('/settings/business-details', DETAILS), 200)).toEqual({
      object: 'business_details',
      ...DETAILS,
    });
    // Only what is given changes; null clears.
    expect(
      expectStatus(await account.superadmin.put('/settings/business-details', { support_phone: null }), 200),
    ).toEqual({ object: 'business_details', ...DETAILS, support_phone: null });
    expect(expectStatus(await account.standard.get('/settings/business-details'), 200)).toMatchObject({
      legal_name: 'Analytical Engines Ltd',
      support_phone: null,
    });
    const audited = await auditEntriesOf(account.superadmin, '/settings/business-details', 2);
    expect(audited.map((entry) => [entry.method, entry.status])).toEqual([
      ['PUT', 200],
      ['PUT', 200],
    ]);
  });

  it('refuses developer and standard keys with 403, changing nothing', async () => {
    const account = await newAccount('Roles');
    for (const client of [account.developer, account.standard]) {
      const response = await client.put('/settings/business-details', { legal_name: 'Taken Over Ltd' });
      expect(response.status).toBe(403);
      expect(response.body.error).toMatchObject({ type: 'permission_error', code: 'insufficient_role' });
    }
    expect(expectStatus(await account.superadmin.get('/settings/business-details'), 200)).toEqual(EMPTY);
  });

  it.each([
    [{}, 'legal_name', 'parameter_invalid'],
    [{ legal_name: '' }, 'legal_name', 'parameter_invalid'],
    [{ legal_name: 'Line\nbreak Ltd' }, 'legal_name', 'parameter_invalid'],
    [{ legal_name: 'x'.repeat(201) }, 'legal_name', 'parameter_invalid'],
    [{ address: { country: 'United Kingdom' } }, 'address.country', 'parameter_invalid'],
    [{ address: { street: '1 Main St' } }, 'address.street', 'parameter_unknown'],
    [{ support_email: 'not an email' }, 'support_email', 'parameter_invalid'],
    [{ support_phone: 'call me' }, 'support_phone', 'parameter_invalid'],
    [{ support_phone: '' }, 'support_phone', 'parameter_invalid'],
    [{ tax_id: 42 }, 'tax_id', 'parameter_invalid'],
    [{ tax_id: 'x'.repeat(51) }, 'tax_id', 'parameter_invalid'],
    [{ vat: 'GB1' }, 'vat', 'parameter_unknown'],
  ])('%j -> 400 naming %s, changing nothing', async (body, param, code) => {
    const account = await newAccount('Invalid');
    const response = await account.superadmin.put('/settings/business-details', body);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ type: 'invalid_request_error', param, code });
    expect(expectStatus(await account.superadmin.get('/settings/business-details'), 200)).toEqual(EMPTY);
  });

  it("leaves another account's details alone", async () => {
    const mine = await newAccount('Mine');
    const theirs = await newAccount('Theirs');
    expectStatus(await mine.superadmin.put('/settings/business-details', DETAILS), 200);
    expect(expectStatus(await theirs.standard.get('/settings/business-details'), 200)).toEqual(EMPTY);
    const invoice = await paidInvoice(theirs.superadmin);
    expect(invoice).toMatchObject({ account_name: 'Theirs', account_country: null, account_tax_id: null });
  });
});

describe('where customers read them', () => {
  it('issues invoices under them: the invoice fields, its PDF, a credit note, the hosted page and the email, kept as issued', async () => {
    const account = await newAccount('Short name');
    expectStatus(await account.superadmin.put('/settings/business-details', DETAILS), 200);
    const invoice = await paidInvoice(account.superadmin);
    expect(invoice).toMatchObject({
      account_name: 'Analytical Engines Ltd',
      account_country: 'GB',
      account_address: DETAILS.address,
      account_email: DETAILS.support_email,
      account_phone: DETAILS.support_phone,
      account_tax_id: DETAILS.tax_id,
    });
    const seller = [
      'Analytical Engines Ltd',
      '1 Dorset Street',
      'London, W1U 4EG',
      'GB',
      'billing@engines.example',
      '+44 20 7946 0000',
      'Tax ID GB123456789',
    ];

    const pdf = await fetchPdf(`${app.baseUrl}/invoices/${invoice.id}/pdf`, { 'cc-api-key': account.apiKey });
    expect(pdf.status).toBe(200);
    const text = await pdfText(pdf.body);
    for (const line of seller) expect(text).toContain(line);
    // Kept to look at (pdftoppm turns it into a picture), as the browser tests keep their screenshots.
    fs.mkdirSync('test-output', { recursive: true });
    fs.writeFileSync('test-output/documents-business-details-invoice.pdf', pdf.body);

    const note = expectStatus(
      await account.superadmin.post('/credit-notes', {
        invoice: invoice.id,
        amount: 5000,
        refund_to: 'card',
        reason: 'order_change',
      }),
      201,
      'POST /credit-notes',
    );
    const notePdf = await fetchPdf(`${app.baseUrl}/credit-notes/${note.id}/pdf`, { 'cc-api-key': account.apiKey });
    const noteText = await pdfText(notePdf.body);
    for (const line of seller) expect(noteText).toContain(line);

    const page = await pageText(await fetch(`${app.baseUrl}${hostedPath(invoice)}`));
    expect(page).toContain('<h2>From</h2>');
    for (const line of seller) expect(page).toContain(line);

    const email = invoiceEmail('invoice', await loadInvoiceDocument(app.prisma, account.accountId, invoice.id));
    for (const line of seller) expect(email.text).toContain(line);
    expect(email.text).toContain('Questions? Write to billing@engines.example or call +44 20 7946 0000.');
    expect(email.html).toContain('Tax ID GB123456789');

    // A change of the settings reaches the invoices made from then on; the issued one keeps what it said.
    expectStatus(
      await account.superadmin.put('/settings/business-details', { legal_name: 'Engines Group plc', tax_id: null }),
      200,
    );
    const issued = expectStatus(await account.superadmin.get(`/invoices/${invoice.id}`), 200);
    expect(issued).toMatchObject({ account_name: 'Analytical Engines Ltd', account_tax_id: 'GB123456789' });
    expect(
      await pdfText(
        (await fetchPdf(`${app.baseUrl}/invoices/${invoice.id}/pdf`, { 'cc-api-key': account.apiKey })).body,
      ),
    ).toContain('Tax ID GB123456789');
    const next = await paidInvoice(account.superadmin);
    expect(next).toMatchObject({ account_name: 'Engines Group plc', account_tax_id: null, account_country: 'GB' });
  });

  it("finalizes a draft made before the settings under the settings of its finalization; another account's invoice is 404", async () => {
    const account = await newAccount('Drafting');
    const customer = expectStatus(await account.superadmin.post('/customers', customerWithAddresses), 201);
    const draft = expectStatus(
      await account.superadmin.post('/invoices', {
        customer: customer.id,
        lines: [{ description: 'Consulting', amount: 2500 }],
      }),
      201,
    );
    expect(draft).toMatchObject({ account_name: 'Drafting', account_address: null, account_email: null });
    expectStatus(await account.superadmin.put('/settings/business-details', DETAILS), 200);
    const finalized = expectStatus(await account.superadmin.post(`/invoices/${draft.id}/finalize`), 200, 'finalize');
    expect(finalized).toMatchObject({
      account_name: 'Analytical Engines Ltd',
      account_country: 'GB',
      account_tax_id: 'GB123456789',
    });

    const other = await newAccount('Other');
    expect((await other.superadmin.get(`/invoices/${draft.id}`)).status).toBe(404);
    expect((await fetchPdf(`${app.baseUrl}/invoices/${draft.id}/pdf`, { 'cc-api-key': other.apiKey })).status).toBe(
      404,
    );
  });
});
