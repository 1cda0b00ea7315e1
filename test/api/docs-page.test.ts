import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { apiClient, startTestApp, type TestApp } from '../support/harness';

/**
 * GET /docs in a real headless Chromium (Debian's `chromium`, installed by .ci/run): the page renders
 * every tag of /openapi.json from the service itself, nothing from outside, and a screenshot is kept in
 * test-output/docs.png.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveChromium = fs.existsSync(CHROMIUM);
if (!haveChromium)
  console.warn(
    `test/api/docs-page.test.ts: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH): the browser test is skipped`,
  );
const OUTPUT = path.join(__dirname, '..', '..', 'test-output');

let app: TestApp;
let browser: Browser | undefined;
beforeAll(async () => {
  app = await startTestApp();
  if (haveChromium)
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    });
});
afterAll(async () => {
  await browser?.close();
  await app.close();
});

describe('GET /docs', () => {
  it('serves an HTML page and the viewer assets without an API key', async () => {
    const page = await fetch(`${app.baseUrl}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toContain('/docs/assets/swagger-ui-bundle.js');
    expect(html).not.toMatch(/https?:\/\//);
    const bundle = await fetch(`${app.baseUrl}/docs/assets/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toMatch(/javascript/);
    await bundle.arrayBuffer();
    const missing = await apiClient(app.baseUrl).get('/docs/assets/nothing.js');
    expect(missing.status).toBe(404);
  });

  (haveChromium ? it : it.skip)(
    'renders every tag of the OpenAPI document in headless Chromium, fetching nothing from outside',
    async () => {
      const document = (await apiClient(app.baseUrl).get('/openapi.json')).body as {
        paths: Record<string, Record<string, { tags?: string[] }>>;
      };
      const tags = [
        ...new Set(
          Object.values(document.paths).flatMap((operations) =>
            Object.values(operations).flatMap((operation) => operation.tags ?? []),
          ),
        ),
      ].sort();
      expect(tags.length).toBeGreaterThan(5);

      const page = await browser!.newPage({ viewport: { width: 1280, height: 1600 } });
      const outside: string[] = [];
      const pageErrors: string[] = [];
      page.on('pageerror', (error) => pageErrors.push(error.message));
      await page.route('**/*', (route) => {
        const url = route.request().url();
        if (url.startsWith(app.baseUrl) || url.startsWith('data:')) return route.continue();
        outside.push(url);
        return route.abort();
      });
      await page.goto(`${app.baseUrl}/docs`);
      // Swagger UI draws the tags in more than one pass: wait for as many as the document has.
      // (A locator, not waitForFunction: the page's Content-Security-Policy forbids the eval that one needs.)
      await page
        .locator('.opblock-tag')
        .nth(tags.length - 1)
        .waitFor({ timeout: 30_000 });
      const rendered = (
        await page.$$eval('.opblock-tag', (elements) => elements.map((element) => element.getAttribute('data-tag')))
      ).sort();
      expect(rendered).toEqual(tags);
      await expect(page.locator('.info .title').innerText()).resolves.toContain('Subscription billing API');
      // An operation opened shows its operationId and its documented answers.
      await page.locator('.opblock-tag[data-tag="Customers"]').click();
      await page.locator('.opblock-summary-path[data-path="/customers"]').first().click();
      await page.waitForSelector('.responses-table', { timeout: 10_000 });

      fs.mkdirSync(OUTPUT, { recursive: true });
      const screenshot = path.join(OUTPUT, 'docs.png');
      await page.screenshot({ path: screenshot, fullPage: false });
      console.log(`screenshot of /docs: ${screenshot}`);
      expect(fs.statSync(screenshot).size).toBeGreaterThan(10_000);
      expect(outside).toEqual([]);
      expect(pageErrors).toEqual([]);
      await page.close();
    },
  );
});
