import { pdfText } from '../support/pdf';
import { hashPageToken, redactPageToken } from '../../src/lib/page-tokens';
import { PAGE_CSP } from '../../src/hosted-pages/page';
import { browserTest, haveChromium, openDashboardBrowser, type DashboardBrowser } from '../support/browser';
import { apiClient, createTestAccount, eventsOf, startTestApp, type ApiClient, type TestApp } from '../support/harness';
import { CARDS, createTaxRate, createInvoice, gatewayCharges } from '../support/payments';
import { hostedPath, pageForm, pageText, postForm, EXPIRY } from './pages';

/**
 * The hosted invoice page (docs/api.md "Hosted pages"): the link every finalized invoice gets, the
 * page, paying it by card through the API's payInvoice, and the page's safety (unknown and expired
 * links, CSRF, rate limit, another invoice's data). Browser tests in headless Chromium at the end.
 */
const browserIt = browserTest('test/hosted-pages/hosted-invoice.test.ts');

let app: TestApp;
let api: ApiClient;
let accountId: string;
let other: ApiClient;
let browser: DashboardBrowser | undefined;

beforeAll(async () => {
  app = await startTestApp({ pageLimits: { postsPerMinute: 50, requestsPerMinute: 1000 } });
  const account = await createTestAccount(app.prisma, { name: 'Acme Rockets' });
  accountId = account.accountId;
  api = apiClient(app.baseUrl, account.apiKey);
  other = apiClient(app.baseUrl, (await createTestAccount(app.prisma, { name: 'Other Shop' })).apiKey);
  if (haveChromium) browser = await openDashboardBrowser(app.baseUrl, { screens: 'hosted' });
});

afterAll(async () => {
  await browser?.close();
  await app.close();
});

/** An open invoice (finalized, not paid) of a customer without a card, with a taxed line. */
async function openInvoice(client = api, amount = 4200) {
  const created = await client.post('/customers', {
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    address: [{ line1: '12 Analytical Row', city: 'London', postal_code: 'N1 9GU', country: 'GB' }],
  });
  expect(created.status).toBe(201);
  const customer = created.body;
  const rate = await createTaxRate(client, 20, false);
  const draft = await createInvoice(client, {
    customer: customer.id,
    lines: [
      { description: 'Engine tuning', amount, tax: [rate.id] },
      { description: 'Punched cards', amount: 150, quantity: 4 },
    ],
  });
  expect(draft.hosted_invoice_url).toBeNull();
  const finalized = await client.post(`/invoices/${draft.id}/finalize`, {});
  expect(finalized.status).toBe(200);
  return finalized.body;
}

/** Posts a card on the invoice's page with the hidden fields of `form` (a fresh rendering's unless given). */
async function payFromPage(
  invoice: { hosted_invoice_url: string },
  number: string,
  form?: Record<string, string>,
  headers?: Record<string, string>,
) {
  const fields = form ?? (await pageForm(app.baseUrl, hostedPath(invoice)));
  const card = { name: 'Ada Lovelace', number, exp: EXPIRY, cvc: '123' };
  return postForm(app.baseUrl, `${hostedPath(invoice)}/pay`, { ...fields, ...card }, headers);
}

describe('hosted_invoice_url', () => {
  it('is given at finalization, the same in every answer and in invoice.finalized, and opens the page', async () => {
    const invoice = await openInvoice();
    expect(invoice.hosted_invoice_url).toMatch(/^http:\/\/localhost:\d+\/hosted\/invoices\/[A-Za-z0-9_-]{43}$/);
    expect((await api.get(`/invoices/${invoice.id}`)).body.hosted_invoice_url).toBe(invoice.hosted_invoice_url);
    const listed = await api.get(`/invoices?customer=${invoice.customer}`);
    expect(listed.body.data[0].hosted_invoice_url).toBe(invoice.hosted_invoice_url);
    const finalizedEvent = (await eventsOf(app.prisma, accountId, 'invoice.finalized')).find(
      (event) => (event.data as { id: string }).id === invoice.id,
    );
    expect((finalizedEvent!.data as { hosted_invoice_url: string }).hosted_invoice_url).toBe(
      invoice.hosted_invoice_url,
    );

    // Only the token's SHA-256 is stored beside a sealed copy: the table does not hold the token.
    const token = hostedPath(invoice).split('/').pop()!;
    const row = await app.prisma.hostedInvoiceLink.findUniqueOrThrow({ where: { invoiceId: invoice.id } });
    expect(row.tokenHash).toBe(hashPageToken(token));
    expect(JSON.stringify(row)).not.toContain(token);

    const page = await fetch(`${app.baseUrl}${hostedPath(invoice)}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toBe(PAGE_CSP);
    expect(page.headers.get('cache-control')).toBe('no-store');
    const text = await pageText(page);
    expect(text).toContain(invoice.number);
    expect(text).toContain('Engine tuning');
    expect(text).toContain('$56.40'); // 42.00 + 20% + 4 x 1.50
    expect(text).toContain('Ada Lovelace');
    expect(text).toContain('12 Analytical Row');
    expect(text).toContain('Tax 20% on $42.00');
    // The card form's fields carry the standard autocomplete values (docs/api.md "Hosted pages").
    for (const value of ['cc-name', 'cc-number', 'cc-exp', 'cc-csc']) expect(text).toContain(`autocomplete="${value}"`);
    // The PDF, from the page's own path: the invoice's document.
    expect(text).toContain(`href="${hostedPath(invoice)}/pdf"`);
    const pdf = await fetch(`${app.baseUrl}${hostedPath(invoice)}/pdf`);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    const pdfContent = await pdfText(Buffer.from(await pdf.arrayBuffer()));
    expect(pdfContent).toContain(invoice.number);
    expect(pdfContent).toContain('$56.40');
    // Nothing from elsewhere: every src and href is this service's.
    expect(
      [...text.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]).filter((url) => !url!.startsWith('/')),
    ).toEqual([]);
  });

  it('request logs keep the path without the token', () => {
    expect(redactPageToken(`/hosted/invoices/${'a'.repeat(43)}/pay`)).toBe('/hosted/invoices/{token}/pay');
    expect(redactPageToken('/invoices/abc')).toBe('/invoices/abc');
  });

  it('the other account never sees the invoice by its id', async () => {
    const invoice = await openInvoice();
    expect((await other.get(`/invoices/${invoice.id}`)).status).toBe(404);
  });
});

describe('links that do not work say so', () => {
  it('an unknown or malformed token is a 404 page, an expired one a 410 page, never JSON or a 500', async () => {
    for (const path of ['/hosted/invoices/' + 'A'.repeat(43), '/hosted/invoices/short', '/hosted/nothing-here']) {
      const response = await fetch(`${app.baseUrl}${path}`);
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await pageText(response)).toContain('This link is not valid');
    }
    const invoice = await openInvoice();
    await app.prisma.hostedInvoiceLink.update({
      where: { invoiceId: invoice.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const expired = await fetch(`${app.baseUrl}${hostedPath(invoice)}`);
    expect(expired.status).toBe(410);
    expect(await pageText(expired)).toContain('This link has expired');
    const post = await fetch(`${app.baseUrl}${hostedPath(invoice)}/pay`, { method: 'POST' });
    expect(post.status).toBe(410);
  });
});

describe('paying from the page', () => {
  it('a good card pays it once: payment_method.attached then invoice.payment_succeeded, the page says so', async () => {
    const invoice = await openInvoice();
    const form = await pageForm(app.baseUrl, hostedPath(invoice));
    const response = await payFromPage(invoice, '4242 4242 4242 4242', form);
    expect(response.status).toBe(303);
    const location = response.headers.get('location')!;
    expect(location).toBe(`${hostedPath(invoice)}?attempt=${form.form_key}`);
    const after = await pageText(await fetch(`${app.baseUrl}${location}`));
    expect(after).toContain('Payment received: $56.40 on visa ending 4242');
    expect(after).not.toContain('autocomplete="cc-number"');

    const paid = (await api.get(`/invoices/${invoice.id}`)).body;
    expect(paid).toMatchObject({ status: 'paid', amount_paid: 5640, amount_remaining: 0 });
    const types = (await eventsOf(app.prisma, accountId))
      .filter((event) => (event.data as { id?: string; customer?: string }).customer === invoice.customer)
      .map((event) => event.type);
    expect(types).toEqual([
      'invoice.created',
      'invoice.finalized',
      'payment_method.attached',
      'invoice.payment_succeeded',
    ]);
    // The number is not stored: the method keeps brand and last4 only.
    const methods = await app.prisma.paymentMethod.findMany({ where: { customerId: invoice.customer } });
    expect(JSON.stringify(methods, (_k, v) => (typeof v === 'bigint' ? String(v) : v))).not.toContain(
      '4242424242424242',
    );
  });

  it('a declined card shows the decline and keeps the invoice open; another card then pays it', async () => {
    const invoice = await openInvoice();
    const form = await pageForm(app.baseUrl, hostedPath(invoice));
    const response = await payFromPage(invoice, CARDS.declined, form);
    expect(response.status).toBe(303);
    const page = await pageText(await fetch(`${app.baseUrl}${response.headers.get('location')}`));
    expect(page).toContain('Your card was declined.');
    expect(page).toContain('the invoice is still open');
    expect(page).toContain('autocomplete="cc-number"');
    expect((await api.get(`/invoices/${invoice.id}`)).body).toMatchObject({ status: 'open', attempt_count: 1 });

    const retry = await pageForm(app.baseUrl, hostedPath(invoice));
    await payFromPage(invoice, CARDS.succeeds, retry);
    expect((await api.get(`/invoices/${invoice.id}`)).body.status).toBe('paid');
    const types = (await eventsOf(app.prisma, accountId))
      .filter((event) => (event.data as { customer?: string }).customer === invoice.customer)
      .map((event) => event.type);
    expect(types).toEqual([
      'invoice.created',
      'invoice.finalized',
      'payment_method.attached',
      'invoice.payment_failed',
      'payment_method.attached',
      'invoice.payment_succeeded',
    ]);
  });

  it('a double submit (the same form) and two tabs (two forms) at once charge once', async () => {
    const invoice = await openInvoice();
    const before = await gatewayCharges(app.prisma, accountId);
    const form = await pageForm(app.baseUrl, hostedPath(invoice));
    const tab = await pageForm(app.baseUrl, hostedPath(invoice));
    const answers = await Promise.all([
      payFromPage(invoice, CARDS.succeeds, form),
      payFromPage(invoice, CARDS.succeeds, form),
      payFromPage(invoice, CARDS.succeeds, tab),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([303, 303, 303]);
    expect(await gatewayCharges(app.prisma, accountId)).toBe(before + 1);
    expect((await api.get(`/invoices/${invoice.id}`)).body).toMatchObject({ status: 'paid', amount_paid: 5640 });
    const succeeded = (await eventsOf(app.prisma, accountId, 'invoice.payment_succeeded')).filter(
      (event) => (event.data as { id: string }).id === invoice.id,
    );
    expect(succeeded).toHaveLength(1);
  });

  it('bad card details are shown beside their fields (400), never echoed, nothing charged', async () => {
    const invoice = await openInvoice();
    const form = await pageForm(app.baseUrl, hostedPath(invoice));
    const response = await postForm(app.baseUrl, `${hostedPath(invoice)}/pay`, {
      ...form,
      name: 'Ada Lovelace',
      number: '4242424242424241',
      exp: '1299',
      cvc: '1',
    });
    expect(response.status).toBe(400);
    const text = await pageText(response);
    expect(text).toContain('This card number is not valid.');
    expect(text).toContain('Enter the expiry as MM/YY.');
    expect(text).toContain('security code');
    expect(text).not.toContain('4242424242424241');
    expect(text).toContain('value="Ada Lovelace"');
    expect((await api.get(`/invoices/${invoice.id}`)).body).toMatchObject({ status: 'open', attempt_count: 0 });
  });

  it('a post without the page CSRF token, or from another origin, is refused (403) and charges nothing', async () => {
    const invoice = await openInvoice();
    const form = await pageForm(app.baseUrl, hostedPath(invoice));
    const noToken = await payFromPage(invoice, CARDS.succeeds, { form_key: form.form_key! });
    expect(noToken.status).toBe(403);
    expect(await pageText(noToken)).toContain('This form has expired');
    const otherInvoice = await openInvoice();
    const wrongPage = await payFromPage(invoice, CARDS.succeeds, await pageForm(app.baseUrl, hostedPath(otherInvoice)));
    expect(wrongPage.status).toBe(403);
    const crossSite = await payFromPage(invoice, CARDS.succeeds, form, { origin: 'https://evil.example' });
    expect(crossSite.status).toBe(403);
    expect((await api.get(`/invoices/${invoice.id}`)).body).toMatchObject({ status: 'open', attempt_count: 0 });
  });

  it('the posts of one link are rate limited (429 page with Retry-After)', async () => {
    const limited = await startTestApp({ pageLimits: { postsPerMinute: 2, requestsPerMinute: 1000 } });
    try {
      const invoice = await openInvoice();
      const path = `${hostedPath(invoice)}/pay`;
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await postForm(limited.baseUrl, path, { name: 'x' })).status);
      expect(statuses).toEqual([403, 403, 429]);
      const refused = await postForm(limited.baseUrl, path, {});
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(await pageText(refused)).toContain('Too many attempts');
    } finally {
      await limited.close();
    }
  });

  it("another account's invoice link shows that invoice only, and a paid invoice offers no form", async () => {
    const mine = await openInvoice();
    const theirs = await openInvoice(other, 9900);
    const text = await pageText(await fetch(`${app.baseUrl}${hostedPath(theirs)}`));
    expect(text).toContain(theirs.number);
    expect(text).toContain('Other Shop');
    expect(text).not.toContain('Acme Rockets');
    // A form of their page posted to mine is refused: each link's CSRF token is its own.
    const form = await pageForm(app.baseUrl, hostedPath(theirs));
    const crossed = await payFromPage(mine, CARDS.succeeds, form);
    expect(crossed.status).toBe(403);
  });
});

describe('the receipt and the account colour', () => {
  it('once paid the page offers the receipt PDF beside the invoice; before, the receipt is a 409 page', async () => {
    const invoice = await openInvoice();
    const path = hostedPath(invoice);
    const before = await fetch(`${app.baseUrl}${path}/receipt`);
    expect(before.status).toBe(409);
    expect(before.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await pageText(await fetch(`${app.baseUrl}${path}`))).not.toContain('/receipt');

    expect((await payFromPage(invoice, CARDS.succeeds)).status).toBe(303);
    const text = await pageText(await fetch(`${app.baseUrl}${path}`));
    expect(text).toContain(`href="${path}/receipt"`);
    const receipt = await fetch(`${app.baseUrl}${path}/receipt`);
    expect(receipt.status).toBe(200);
    expect(receipt.headers.get('content-type')).toBe('application/pdf');
    expect(receipt.headers.get('content-disposition')).toContain(`Receipt-${invoice.number}.pdf`);
    const read = await pdfText(Buffer.from(await receipt.arrayBuffer()));
    expect(read).toContain('Receipt');
    expect(read).toContain(invoice.number);
    expect(read).toContain('$56.40 paid');
    // An unknown token's receipt is the unknown link's page.
    expect((await fetch(`${app.baseUrl}/hosted/invoices/${'x'.repeat(43)}/receipt`)).status).toBe(404);
  });

  it("the account's colour is a stylesheet of this service (the policy allows no inline style), text contrasting", async () => {
    await app.prisma.account.update({ where: { id: accountId }, data: { brandColor: '#0b7a5a' } });
    try {
      const invoice = await openInvoice();
      const text = await pageText(await fetch(`${app.baseUrl}${hostedPath(invoice)}`));
      expect(text).toContain('href="/hosted/assets/brand-0b7a5a.css"');
      expect(text).not.toContain('style=');
      const css = await fetch(`${app.baseUrl}/hosted/assets/brand-0b7a5a.css`);
      expect(css.status).toBe(200);
      expect(css.headers.get('content-type')).toMatch(/^text\/css/);
      expect(await css.text()).toBe(':root{--brand:#0b7a5a;--brand-text:#ffffff}\n');
      const light = await (await fetch(`${app.baseUrl}/hosted/assets/brand-ffd43b.css`)).text();
      expect(light).toContain('--brand-text:#1a1d23');
      expect((await fetch(`${app.baseUrl}/hosted/assets/brand-zzzzzz.css`)).status).toBe(404);
      // Another account's page keeps the service's colours.
      const theirs = await openInvoice(other, 9900);
      expect(await pageText(await fetch(`${app.baseUrl}${hostedPath(theirs)}`))).not.toContain('brand-');
    } finally {
      await app.prisma.account.update({ where: { id: accountId }, data: { brandColor: null } });
    }
  });
});

describe('in a browser', () => {
  browserIt('pays with a good card, shows a decline, pays once on a double click (axe, screenshots)', async () => {
    const b = browser!;
    const invoice = await openInvoice();
    const page = await b.newPage();
    await page.goto(`${app.baseUrl}${hostedPath(invoice)}`);
    await page.getByRole('heading', { name: `Invoice ${invoice.number}`, exact: true }).waitFor();
    await b.screen(page, 'invoice-open');

    await page.getByLabel('Name on card', { exact: true }).fill('Ada Lovelace');
    await page.getByLabel('Card number', { exact: true }).fill(CARDS.declined);
    await page.getByLabel('Expiry (MM/YY)', { exact: true }).fill(EXPIRY);
    await page.getByLabel('Security code', { exact: true }).fill('123');
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.getByText('Your card was declined.').waitFor();
    await b.screen(page, 'invoice-declined');

    const before = await gatewayCharges(app.prisma, accountId);
    await page.getByLabel('Name on card', { exact: true }).fill('Ada Lovelace');
    await page.getByLabel('Card number', { exact: true }).fill(CARDS.succeeds);
    await page.getByLabel('Expiry (MM/YY)', { exact: true }).fill(EXPIRY);
    await page.getByLabel('Security code', { exact: true }).fill('123');
    await page.getByRole('button', { name: /^Pay / }).dblclick();
    await page.getByText(/Payment received/).waitFor();
    await b.screen(page, 'invoice-paid');
    expect(await gatewayCharges(app.prisma, accountId)).toBe(before + 1);
    expect((await api.get(`/invoices/${invoice.id}`)).body.status).toBe('paid');

    // A credit note of the invoice is listed with its PDF (docs/api.md, "Hosted pages").
    const note = { invoice: invoice.id, amount: 1000, reason: 'order_change', refund_to: 'customer_balance' };
    const credited = (await api.post('/credit-notes', note)).body;
    await page.goto(`${app.baseUrl}${hostedPath(invoice)}`);
    await page.getByRole('heading', { name: 'Credit notes', exact: true }).waitFor();
    await page.getByRole('link', { name: `${credited.number} (PDF)`, exact: true }).waitFor();
    await b.screen(page, 'invoice-credit-notes');

    const bad = await b.newPage();
    await bad.goto(`${app.baseUrl}/hosted/invoices/${'x'.repeat(43)}`);
    await b.screen(bad, 'link-unknown');
    // A link past its HOSTED_INVOICE_LINK_DAYS: the 410 page.
    const stale = await openInvoice();
    await app.prisma.hostedInvoiceLink.update({
      where: { invoiceId: stale.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect((await bad.goto(`${app.baseUrl}${hostedPath(stale)}`))!.status()).toBe(410);
    await bad.getByRole('heading', { name: 'This link has expired', exact: true }).waitFor();
    await b.screen(bad, 'link-expired');
    expect(b.offSite).toEqual([]);
  });

  browserIt("in the account's colour, paid: the invoice and its receipt to download (axe, screenshot)", async () => {
    const b = browser!;
    await app.prisma.account.update({ where: { id: accountId }, data: { brandColor: '#0b7a5a' } });
    try {
      const invoice = await openInvoice();
      expect((await payFromPage(invoice, CARDS.succeeds)).status).toBe(303);
      const page = await b.newPage();
      await page.goto(`${app.baseUrl}${hostedPath(invoice)}`);
      await page.getByRole('link', { name: 'Download the receipt (PDF)', exact: true }).waitFor();
      // The header's rule and the pay button (none once paid) take the colour from the account's stylesheet.
      const rule = await page
        .locator('.top')
        .evaluate((element) => (globalThis as any).getComputedStyle(element).borderBottomColor as string);
      expect(rule).toBe('rgb(11, 122, 90)');
      await b.screen(page, 'invoice-paid-branded');
      expect(b.offSite).toEqual([]);
    } finally {
      await app.prisma.account.update({ where: { id: accountId }, data: { brandColor: null } });
    }
  });
});
