import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { chromium, type Browser, type Page } from 'playwright-core';
import axe from 'axe-core';
import { projectRoot } from '../../src/config';
import { DASHBOARD_DIST } from '../../src/http/dashboard-page';
import { createTestAccount, startTestApp, type TestApp } from './harness';

/**
 * The dashboard in headless Chromium (Debian's, as test/api/docs-page.test.ts), for every browser
 * test of a screen: pages that load nothing from another origin, sign-in, axe-core (no serious or
 * critical violation) and screenshots at 1280 and 390 px in test-output/dashboard-<name>-<width>.png.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const haveChromium = fs.existsSync(CHROMIUM);
const OUTPUT = path.join(projectRoot, 'test-output');

/** `it` when Chromium is installed, `it.skip` (with a warning naming the file) otherwise. */
export function browserTest(file: string): jest.It {
  if (!haveChromium) console.warn(`${file}: no Chromium at ${CHROMIUM}: the browser tests are skipped`);
  return haveChromium ? it : it.skip;
}

/** Whether dist/dashboard was built after the last change to the app's sources. */
function isBuildCurrent(): boolean {
  const built = path.join(DASHBOARD_DIST, 'index.html');
  if (!fs.existsSync(built)) return false;
  const sources = path.join(projectRoot, 'src', 'dashboard');
  const newest = fs
    .readdirSync(sources, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .reduce((latest, entry) => Math.max(latest, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs), 0);
  return fs.statSync(built).mtimeMs >= newest;
}

/** npm install builds the dashboard; a checkout whose build is older than its sources is built again. */
export function ensureDashboardBuilt(): void {
  if (!isBuildCurrent())
    execFileSync('node', [path.join(projectRoot, 'scripts', 'build-dashboard.mjs')], { stdio: 'inherit' });
}

export interface DashboardBrowser {
  /** A page of `width` px whose requests to any other origin are refused and listed in `offSite`. */
  newPage(width?: number): Promise<Page>;
  /** Signs in from the login page and waits for the home screen. */
  signIn(page: Page, user: { email: string; password: string }): Promise<void>;
  /** Checks the screen with axe and keeps a screenshot of it at 1280 px, then at 390 px. */
  screen(page: Page, name: string): Promise<void>;
  /**
   * screen(), and at 390 px neither the page nor its main navigation is wider than the screen, nor does a
   * table scroll sideways inside its card (docs/decisions.md §35): no sideways scrolling anywhere.
   */
  screenFits(page: Page, name: string): Promise<void>;
  /** The other origins pages tried to reach (none is expected). */
  offSite: string[];
  close(): Promise<void>;
}

/**
 * Builds the dashboard if needed and launches Chromium; call in beforeAll (only when haveChromium).
 * The customer-facing pages (src/hosted-pages) need no build: `{ screens: 'hosted' }` skips it and
 * names their screenshots hosted-<name>-<width>.png.
 */
export async function openDashboardBrowser(
  baseUrl: string,
  {
    screens = 'dashboard',
    alsoAllowed = [],
  }: {
    screens?: 'dashboard' | 'hosted';
    /** Other origins pages may reach (the Stripe.js stand-in, test/support/stripe-js-stand-in.ts). */
    alsoAllowed?: string[];
  } = {},
): Promise<DashboardBrowser> {
  if (screens === 'dashboard') ensureDashboardBuilt();
  fs.mkdirSync(OUTPUT, { recursive: true });
  const browser: Browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  const offSite: string[] = [];
  const dashboard: DashboardBrowser = {
    offSite,
    async newPage(width = 1280) {
      const page = await browser.newPage({ viewport: { width, height: width > 500 ? 860 : 844 } });
      page.on('pageerror', (error) => {
        throw error;
      });
      await page.route('**/*', (route) => {
        const url = route.request().url();
        if ([baseUrl, 'data:', ...alsoAllowed].some((allowed) => url.startsWith(allowed))) return route.continue();
        offSite.push(url);
        return route.abort();
      });
      return page;
    },
    async signIn(page, user) {
      await page.goto(`${baseUrl}/dashboard`);
      await page.waitForURL('**/dashboard/login');
      await page.getByLabel('Email', { exact: true }).fill(user.email);
      await page.getByLabel('Password', { exact: true }).fill(user.password);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.getByRole('heading', { name: /^Welcome/ }).waitFor();
    },
    async screen(page, name) {
      expect({ screen: name, violations: await seriousViolations(page) }).toEqual({ screen: name, violations: [] });
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: width > 500 ? 860 : 844 });
        await page.screenshot({ path: path.join(OUTPUT, `${screens}-${name}-${width}.png`), fullPage: true });
      }
      await page.setViewportSize({ width: 1280, height: 860 });
    },
    async screenFits(page, name) {
      await dashboard.screen(page, name);
      await page.setViewportSize({ width: 390, height: 844 });
      const widths = await page.evaluate<number[]>(
        "[document.documentElement, document.querySelector('nav.sidebar')].map((element) => element?.scrollWidth ?? 390)",
      );
      // Each table card wider inside than its box, named by its table's caption, label or first heading.
      const scrollingTables = await page.evaluate<string[]>(
        `[...document.querySelectorAll('.table-card')]
          .filter((card) => card.scrollWidth > card.clientWidth + 1)
          .map((card) => { const table = card.querySelector('table');
            return table?.caption?.textContent ?? table?.getAttribute('aria-label') ?? card.querySelector('th')?.textContent ?? card.className; })`,
      );
      await page.setViewportSize({ width: 1280, height: 860 });
      expect({ screen: name, widths, scrollingTables }).toEqual({
        screen: name,
        widths: [390, 390],
        scrollingTables: [],
      });
    },
    close: () => browser.close(),
  };
  return dashboard;
}

/** axe-core in the page (evaluated through the DevTools protocol, so the CSP needs no exception). */
async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(axe.source);
  // Runs in the page, where `axe` is the global the script above defined.
  const result = await page.evaluate(() =>
    (globalThis as unknown as { axe: typeof axe }).axe.run({ resultTypes: ['violations'] }),
  );
  return result.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`,
    );
}

/** An app on the real database (no Temporal), an account of it and, with Chromium, the dashboard's browser. */
export interface BrowserApp {
  app: TestApp;
  accountId: string;
  apiKey: string;
  browser: DashboardBrowser | undefined;
  close(): Promise<void>;
}

export async function startBrowserApp(accountName: string): Promise<BrowserApp> {
  const app = await startTestApp();
  const { accountId, apiKey } = await createTestAccount(app.prisma, { name: accountName });
  const browser = haveChromium ? await openDashboardBrowser(app.baseUrl) : undefined;
  return {
    app,
    accountId,
    apiKey,
    browser,
    async close() {
      await browser?.close();
      await app.close();
    },
  };
}
