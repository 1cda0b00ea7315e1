import fs from 'node:fs';
import { browserTest, haveChromium, openDashboardBrowser, type DashboardBrowser } from '../support/browser';
import { createTestUser } from '../support/dashboard';
import { apiClient, createTestAccount, startWorkerApp, type ApiClient, type WorkerApp } from '../support/harness';
import { advanceClock, customerOnClock, subscribeOnClock, subscriptionInvoices } from '../support/clocks';
import { fetchPdf, pdfText } from '../support/pdf';
import { expectStatus, recurringPrice } from '../support/subscriptions';
import { hostedPath } from '../hosted-pages/pages';
import { TIERS } from '../support/usage';

// Seeing usage (docs/decisions.md §46): a usage invoice's PDF and hosted page show each line's quantity and the
// tiers or packages it was billed through; the subscription's page in the dashboard draws each metered item's
// usage by day, its running total and the upcoming invoice's amount. Through HTTP, a worker and a test clock.

process.env.USAGE_GRACE = '30m';

const browserIt = browserTest('test/usage/usage-seen.test.ts');
const at = (iso: string) => Date.parse(iso) / 1000;

let stack: WorkerApp;
let api: ApiClient;
let other: ApiClient;
let browser: DashboardBrowser | undefined;
let user: { email: string; password: string };
let otherUser: { email: string; password: string };

beforeAll(async () => {
  stack = await startWorkerApp('usage-seen', { name: 'Tokens & Co' });
  api = stack.api;
  const otherAccount = await createTestAccount(stack.app.prisma, { name: 'Other' });
  other = apiClient(stack.app.baseUrl, otherAccount.apiKey);
  user = await createTestUser(stack.app.prisma, stack.accountId, { role: 'developer', name: 'Dora Developer' });
  otherUser = await createTestUser(stack.app.prisma, otherAccount.accountId, { role: 'developer' });
  if (haveChromium) browser = await openDashboardBrowser(stack.app.baseUrl);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

/** The graduated terms of the tests' tiered prices (TIERS). */
const GRADUATED = { billing_scheme: 'tiered', tiers_mode: 'graduated', tiers: TIERS };

let meters = 0;

/** A metered price summing `tokens` of an event name of its own, on a product of its own, with `terms`. */
async function meteredPrice(terms: Record<string, unknown>) {
  meters += 1;
  const eventName = `seen_${meters}_${crypto.randomUUID().slice(0, 8)}`;
  const meter = expectStatus(
    await api.post('/meters', { name: 'Tokens', event_name: eventName, aggregation: 'sum', value_property: 'tokens' }),
    201,
  );
  const product = expectStatus(await api.get(`/prices/${await recurringPrice(api, { unitAmount: 1 })}`), 200).product;
  const price = expectStatus(
    await api.post(`/prices/${product}`, {
      currency: 'USD',
      type: 'recurring',
      recurring: { interval: 'month', interval_count: 1, usage_type: 'metered', meter: meter.id },
      ...terms,
    }),
    201,
  );
  return { eventName, price: price.id as string };
}

let sent = 0;
const send = (eventName: string, customer: string, timestamp: number, tokens: number) =>
  api.post('/usage-events', {
    events: [{ id: `seen-${++sent}`, event_name: eventName, customer, timestamp, properties: { tokens } }],
  });

/**
 * A customer on a clock from Jan 1 2026 with a licensed price of $10, a graduated metered price (1000 units at
 * 5 cents, up to 10000 at 3 with a $10 flat fee, then 1) and a package one ($2.50 per 1000 units, rounded up);
 * January's usage (1200 and 2500 tokens) billed on the invoice of Feb 1, an hour after January's end.
 */
async function billedJanuary() {
  const licensed = await recurringPrice(api, { unitAmount: 1000 });
  const tiered = await meteredPrice(GRADUATED);
  const packages = await meteredPrice({ unit_amount: 250, transform_quantity: { divide_by: 1000, round: 'up' } });
  const { clock, customer, method } = await customerOnClock(api, at('2026-01-01T00:00:00Z'));
  const subscription = await subscribeOnClock(
    api,
    { customer, method },
    [{ price: licensed, quantity: 1 }, { price: tiered.price } as never, { price: packages.price } as never],
    at('2026-01-01T00:00:00Z'),
  );
  await advanceClock(api, clock.id, at('2026-01-31T12:00:00Z'));
  expectStatus(await send(tiered.eventName, customer.id, at('2026-01-10T00:00:00Z'), 1200), 202);
  expectStatus(await send(packages.eventName, customer.id, at('2026-01-20T00:00:00Z'), 2500), 202);
  await advanceClock(api, clock.id, at('2026-02-01T01:00:00Z'));
  const invoice = (await subscriptionInvoices(api, subscription.id))[1];
  return { clock, customer, subscription, tiered, packages, invoice };
}

describe('a usage invoice shows how its usage was priced', () => {
  let billed: Awaited<ReturnType<typeof billedJanuary>>;
  beforeAll(async () => {
    billed = await billedJanuary();
  }, 120_000);

  it('has each usage line with its quantity, tiers and packages in the PDF', async () => {
    const { invoice, tiered, packages } = billed;
    const usageLine = (price: string) => invoice.lines.find((line: any) => line.price === price);
    expect(usageLine(tiered.price)).toMatchObject({ quantity: 1200, amount: 6600, tiers_mode: 'graduated' });
    expect(usageLine(packages.price)).toMatchObject({ quantity: 2500, amount: 750, packages: 3 });
    // The breakdown is a record of what was billed: a price whose tiers changed (never through the API: 409
    // price_usage_terms; here in the database) leaves the invoice as it was.
    const tieredTerms = await stack.app.prisma.price.findUniqueOrThrow({ where: { id: tiered.price } });
    await stack.app.prisma.price.update({
      where: { id: tiered.price },
      data: { tiersMode: 'volume', tiers: [{ up_to: null, unit_amount: 1, flat_amount: 0 }] },
    });
    try {
      expect(expectStatus(await api.get(`/invoices/${invoice.id}`), 200).lines).toEqual(invoice.lines);
    } finally {
      await stack.app.prisma.price.update({
        where: { id: tiered.price },
        data: { tiersMode: tieredTerms.tiersMode, tiers: tieredTerms.tiers ?? undefined },
      });
    }
    // Another account's key sees neither the invoice nor its lines.
    expect((await other.get(`/invoices/${invoice.id}`)).status).toBe(404);

    // The PDF the customer downloads from the hosted page (the API's GET /invoices/{id}/pdf renders the same).
    const pdf = await fetchPdf(`${stack.app.baseUrl}${hostedPath(invoice)}/pdf`);
    expect([pdf.status, pdf.type]).toEqual([200, 'application/pdf']);
    fs.mkdirSync('test-output', { recursive: true });
    fs.writeFileSync('test-output/usage-invoice.pdf', pdf.body);
    const text = await pdfText(pdf.body);
    // pdf-parse reads a row's cells as one line, tab-separated.
    const rows = text.split('\n').map((row) => row.replace(/\s+/g, ' ').trim());
    for (const row of [
      'First 1,000 units at $0.05 $50.00',
      'Next 200 units at $0.03 + $10.00 flat fee $16.00',
      '3 packages of 1,000 units at $2.50 $7.50',
    ])
      expect(rows).toContain(row);
    expect(rows.some((row) => /usage, 2026-01-01 to 2026-02-01 1200 \$66\.00$/.test(row))).toBe(true);
    expect(rows.some((row) => /usage, 2026-01-01 to 2026-02-01 2500 \$2\.50 per 1,000 \$7\.50$/.test(row))).toBe(true);
  });

  browserIt('shows the tiers and packages under their lines on the hosted page (axe, screenshot)', async () => {
    const { invoice } = billed;
    const page = await browser!.newPage();
    await page.goto(`${stack.app.baseUrl}${hostedPath(invoice)}`);
    await page.getByRole('heading', { name: `Invoice ${invoice.number}`, exact: true }).waitFor();
    for (const name of [
      'First 1,000 units at $0.05 $50.00',
      'Next 200 units at $0.03 + $10.00 flat fee $16.00',
      '3 packages of 1,000 units at $2.50 $7.50',
    ])
      await page.getByRole('row', { name, exact: true }).waitFor();
    const tieredRow = invoice.lines.find((line: any) => line.tiers_mode === 'graduated');
    // The tiered line's own row: its quantity, no unit price (its tiers say it), its amount.
    await page.getByRole('row', { name: `${tieredRow.description} 1200 $66.00`, exact: true }).waitFor();
    const packageRow = invoice.lines.find((line: any) => line.packages !== null);
    await page
      .getByRole('row', { name: `${packageRow.description} 2500 $2.50 per 1,000 $7.50`, exact: true })
      .waitFor();
    // No sideways scrolling at 390 px: a package line's unit price wraps.
    await browser!.screenFits(page, 'hosted-usage-invoice');
    expect(browser!.offSite).toEqual([]);
    await page.close();
  });
});

describe('a late usage line says which units it bills', () => {
  let late: { invoice: any; line: any };
  beforeAll(async () => {
    const { clock, customer, subscription, tiered } = await billedJanuary();
    // 300 tokens of January reported in February: billed on March's invoice past January's 1200 tokens.
    expectStatus(await send(tiered.eventName, customer.id, at('2026-01-25T00:00:00Z'), 300), 202);
    await advanceClock(api, clock.id, at('2026-03-01T01:00:00Z'));
    const invoice = (await subscriptionInvoices(api, subscription.id))[2];
    const line = invoice.lines.find(
      (each: any) => each.price === tiered.price && / reported late, /.test(each.description),
    );
    late = { invoice, line };
  }, 120_000);

  it('names the units past those billed in its period in the PDF', async () => {
    const { invoice, line } = late;
    expect([line.quantity, line.amount]).toEqual([300, 900]);
    expect(line.tiers).toEqual([
      { up_to: 10_000, quantity: 300, unit_amount: 3, flat_amount: 0, amount: 900, first_unit: 1201 },
    ]);
    const pdf = await fetchPdf(`${stack.app.baseUrl}${hostedPath(invoice)}/pdf`);
    expect([pdf.status, pdf.type]).toEqual([200, 'application/pdf']);
    fs.mkdirSync('test-output', { recursive: true });
    fs.writeFileSync('test-output/usage-late-invoice.pdf', pdf.body);
    const rows = (await pdfText(pdf.body)).split('\n').map((row) => row.replace(/\s+/g, ' ').trim());
    expect(rows).toContain('Units 1,201-1,500 at $0.03 $9.00');
    expect(rows.some((row) => row.startsWith('First '))).toBe(false);
    expect((await other.get(`/invoices/${invoice.id}`)).status).toBe(404);
  });

  browserIt('names them on the hosted page (screenshot)', async () => {
    const { invoice } = late;
    const page = await browser!.newPage();
    await page.goto(`${stack.app.baseUrl}${hostedPath(invoice)}`);
    await page.getByRole('heading', { name: `Invoice ${invoice.number}`, exact: true }).waitFor();
    await page.getByRole('row', { name: 'Units 1,201-1,500 at $0.03 $9.00', exact: true }).waitFor();
    await browser!.screenFits(page, 'hosted-usage-late-invoice');
    expect(browser!.offSite).toEqual([]);
    await page.close();
  });
});

describe("the dashboard's subscription page", () => {
  browserIt(
    "draws each metered item's usage by day with its running total and the upcoming invoice's amount; another account's is not found",
    async () => {
      const { clock, customer, subscription, tiered, packages } = await billedJanuary();
      // February so far: three days of the tiered meter, one of the packages.
      await advanceClock(api, clock.id, at('2026-02-03T12:00:00Z'));
      for (const [timestamp, tokens] of [
        [at('2026-02-01T05:00:00Z'), 700],
        [at('2026-02-02T08:00:00Z'), 400],
        [at('2026-02-03T09:00:00Z'), 150],
      ] as const)
        expectStatus(await send(tiered.eventName, customer.id, timestamp, tokens), 202);
      expectStatus(await send(packages.eventName, customer.id, at('2026-02-02T10:00:00Z'), 1500), 202);
      const named = expectStatus(await api.get(`/subscriptions/${subscription.id}?include=names`), 200);
      const nameOf = (price: string) =>
        named.items.data.find((item: any) => item.price.id === price).price.product_name as string;
      const upcoming = expectStatus(await api.get(`/invoices/upcoming?subscription=${subscription.id}`), 200);
      // 1250 tokens through the tiers: 1000 x 5 + 1000 + 250 x 3; 1500 tokens in packages of 1000: 2 x $2.50.
      expect(upcoming.lines.map((line: any) => line.amount)).toEqual([1000, 6750, 500]);

      const page = await browser!.newPage();
      await browser!.signIn(page, user);
      await page.goto(`${stack.app.baseUrl}/dashboard/subscriptions/${subscription.id}`);
      await page.getByRole('heading', { name: 'Usage this period', exact: true }).waitFor();
      // The items table names a metered item's billing instead of a quantity of 0 and $0.00.
      expect(await page.getByRole('cell', { name: 'By usage, in arrears', exact: true }).count()).toBe(2);
      expect(await page.getByRole('cell', { name: 'Tiered', exact: true }).count()).toBe(1);
      const tieredName = nameOf(tiered.price);
      await page.getByRole('heading', { name: `${tieredName} usage by day`, exact: true }).waitFor();
      await page.getByRole('img', { name: `${tieredName} usage by day`, exact: true }).waitFor();
      expect(
        await page
          .getByRole('img', { name: `${tieredName} usage by day`, exact: true })
          .getAttribute('aria-describedby'),
      ).toBeTruthy();
      await page.getByRole('heading', { name: `${nameOf(packages.price)} usage by day`, exact: true }).waitFor();
      const figure = page.getByRole('figure', { name: `${tieredName} usage by day`, exact: true });
      await figure.getByText('1,250', { exact: true }).waitFor();
      await figure.getByText('$67.50', { exact: true }).waitFor();
      await page.getByText(`$${(upcoming.total / 100).toFixed(2)}`, { exact: true }).waitFor();
      await page.getByText(`${tieredName} usage by day as a table`, { exact: true }).click();
      const table = page.getByRole('table', { name: `${tieredName} usage by day`, exact: true });
      const values = await table.locator('tbody td').allTextContents();
      expect(values).toEqual(['700', '400', '150']);
      await browser!.screenFits(page, 'subscription-usage');

      // Another account's user reads the same page as not found, and its API key gets 404.
      expect((await other.get(`/subscriptions/${subscription.id}/usage`)).status).toBe(404);
      const stranger = await browser!.newPage();
      await browser!.signIn(stranger, otherUser);
      await stranger.goto(`${stack.app.baseUrl}/dashboard/subscriptions/${subscription.id}`);
      await stranger.getByRole('heading', { name: 'Subscription not found', exact: true }).waitFor();
      expect(await stranger.getByRole('heading', { name: 'Usage this period', exact: true }).count()).toBe(0);
      expect(browser!.offSite).toEqual([]);
    },
    180_000,
  );

  browserIt(
    'shows what an early (threshold) invoice billed of the period and what is left, which the upcoming invoice bills',
    async () => {
      const tiered = await meteredPrice(GRADUATED);
      const { clock, customer, method } = await customerOnClock(api, at('2026-01-01T00:00:00Z'));
      const subscription = await subscribeOnClock(
        api,
        { customer, method },
        [{ price: tiered.price } as never],
        at('2026-01-01T00:00:00Z'),
        { billing_thresholds: { amount_gte: 5000 } },
      );
      await advanceClock(api, clock.id, at('2026-01-10T00:00:00Z'));
      // 1200 tokens cost $66.00 through the tiers: past the threshold, invoiced early.
      expectStatus(await send(tiered.eventName, customer.id, at('2026-01-05T00:00:00Z'), 1200), 202);
      const usage = async () => expectStatus(await api.get(`/subscriptions/${subscription.id}/usage`), 200);
      // The workflow invoices it after the batch's answer: its next task.
      while ((await usage()).items[0].billed.quantity === 0) await new Promise((resolve) => setTimeout(resolve, 100));
      // 300 more: 1500 tokens cost $75.00, of which $9.00 is left for the period's invoice.
      expectStatus(await send(tiered.eventName, customer.id, at('2026-01-08T00:00:00Z'), 300), 202);
      const item = (await usage()).items[0];
      expect([item.total, item.amount, item.billed, item.unbilled]).toEqual([
        1500,
        7500,
        { quantity: 1200, amount: 6600 },
        { quantity: 300, amount: 900 },
      ]);
      const upcoming = expectStatus(await api.get(`/invoices/upcoming?subscription=${subscription.id}`), 200);
      expect(upcoming.total).toBe(900);

      const page = await browser!.newPage();
      await browser!.signIn(page, user);
      await page.goto(`${stack.app.baseUrl}/dashboard/subscriptions/${subscription.id}`);
      const named = expectStatus(await api.get(`/subscriptions/${subscription.id}?include=names`), 200);
      const figure = page.getByRole('figure', {
        name: `${named.items.data[0].price.product_name as string} usage by day`,
        exact: true,
      });
      await figure.getByText('1,500', { exact: true }).waitFor();
      await figure.getByText('$75.00', { exact: true }).waitFor();
      await figure.getByText('1,200 units billed early ($66.00) · $9.00 left to bill', { exact: true }).waitFor();
      await page.getByText('$9.00', { exact: true }).waitFor();
      await browser!.screenFits(page, 'subscription-usage-billed-early');
      expect((await other.get(`/subscriptions/${subscription.id}/usage`)).status).toBe(404);
      expect(browser!.offSite).toEqual([]);
      await page.close();
    },
    180_000,
  );
});
