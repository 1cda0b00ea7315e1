import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { projectRoot } from '../../src/config';
import { createBillingClient, type BillingClient, type Schema } from '../../src/client';
import { createTestAccount, startTestApp, type TestApp } from '../support/harness';
import { contractProblems } from '../support/response-contract';
import { CARDS, cardBody } from '../support/payments';

/**
 * The typed client (src/client, openapi-fetch over types generated from /openapi.json) end to end:
 * if the document and the server drift, this file fails to compile (types) or fails (answers checked
 * against the document, and the committed types against a fresh generation).
 */
let app: TestApp;
let billing: BillingClient;
let other: BillingClient;

/** Every answer the client receives is checked against its documented status and schema. */
const contract = (baseUrl: string) => ({
  async onResponse({ request, response }: { request: Request; response: Response }) {
    const url = new URL(request.url);
    const text = await response.clone().text();
    const problems = await contractProblems(baseUrl, request.method, url.pathname + url.search, {
      status: response.status,
      contentType: response.headers.get('content-type'),
      body: text ? JSON.parse(text) : undefined,
    });
    if (problems.length > 0)
      throw new Error(`${request.method} ${url.pathname} outside its contract: ${problems.join('; ')}`);
    return undefined;
  },
});

beforeAll(async () => {
  app = await startTestApp();
  const mine = await createTestAccount(app.prisma);
  const theirs = await createTestAccount(app.prisma, { name: 'Other' });
  billing = createBillingClient(app.baseUrl, mine.apiKey, { middleware: [contract(app.baseUrl)] });
  other = createBillingClient(app.baseUrl, theirs.apiKey, { middleware: [contract(app.baseUrl)] });
});
afterAll(() => app.close());

describe('the typed client', () => {
  it('is generated from the current document (npm run client:generate)', async () => {
    const tsx = path.join(projectRoot, 'node_modules', '.bin', 'tsx');
    const { stdout } = await promisify(execFile)(
      tsx,
      [path.join(projectRoot, 'scripts', 'generate-client.ts'), '--check'],
      { cwd: projectRoot },
    );
    expect(stdout).toContain('src/client/schema.d.ts is up to date');
  });

  it('drives a customer, a catalog, a card and a paid invoice end to end, typed', async () => {
    const customer = await billing.POST('/customers', { body: { name: 'Typed Customer', email: 'typed@example.com' } });
    expect(customer.response.status).toBe(201);
    const customerId: string = customer.data!.id;

    const product = await billing.POST('/products', {
      body: { name: `Typed plan ${Date.now()}`, currency: 'usd', unit_amount: 2500, type: 'one_time' },
    });
    expect(product.response.status).toBe(201);
    const productBody: Schema<'Product'> = product.data!;
    expect(productBody.default_price).toEqual(expect.any(String));

    const card = cardBody(CARDS.succeeds);
    const method = await billing.POST('/payment-methods', {
      body: { type: 'card', card: card.card, billing_details: card.billing_details, customer: customerId },
    });
    expect(method.response.status).toBe(201);

    const invoice = await billing.POST('/invoices', {
      body: { customer: customerId, lines: [{ price: productBody.default_price!, quantity: 2 }] },
    });
    expect(invoice.response.status).toBe(201);
    const invoiceId = invoice.data!.id;
    expect(invoice.data!.total).toBe(5000);

    const paid = await billing.PUT('/invoices/{id}', { params: { path: { id: invoiceId } }, body: {} });
    expect(paid.response.status).toBe(200);
    expect(paid.data!.status).toBe('paid');

    const listed = await billing.GET('/invoices', { params: { query: { customer: customerId } } });
    expect(listed.data!.data.map((row) => row.id)).toEqual([invoiceId]);
    const fetched = await billing.GET('/customers/{externalKey}', { params: { path: { externalKey: customerId } } });
    expect(fetched.data!.name).toBe('Typed Customer');

    // Another account's client sees none of it.
    const hidden = await other.GET('/customers/{externalKey}', { params: { path: { externalKey: customerId } } });
    expect(hidden.response.status).toBe(404);
    expect(hidden.error!.error.type).toBe('not_found');
    expect((await other.GET('/invoices/{id}', { params: { path: { id: invoiceId } } })).response.status).toBe(404);
  });

  it('types error answers with the Error body', async () => {
    const refused = await billing.POST('/customers', { body: { name: '' } });
    expect(refused.response.status).toBe(400);
    const error: Schema<'Error'> = refused.error!;
    expect(error.error.param).toBe('name');
  });
});
