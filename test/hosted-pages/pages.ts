import { haveChromium, openDashboardBrowser, type DashboardBrowser } from '../support/browser';
import { apiClient, createTestAccount, type ApiClient } from '../support/harness';
import { startSubscriptionWorld, type SubscriptionWorld } from '../support/subscriptions';

/** Helpers of the hosted pages' tests: a page's form values, a form post as a browser sends it. */

/** A card expiry three years ahead, as the form takes it (MM/YY). */
export const EXPIRY = `12/${String((new Date().getUTCFullYear() + 3) % 100).padStart(2, '0')}`;

/** A checkout page's buyer fields as a new customer fills them in (the card aside). */
export const CHECKOUT_BUYER = {
  buyer_name: 'Mary Somerville',
  email: 'mary@example.com',
  line1: '1 Observatory Lane',
  city: 'Edinburgh',
  postal_code: 'EH1 1AA',
  country: 'GB',
  name: 'Mary Somerville',
};

/** The path of an invoice's hosted page (its URL is under PUBLIC_URL, the tests' app on another port). */
export function hostedPath(invoice: { hosted_invoice_url: string }): string {
  return new URL(invoice.hosted_invoice_url).pathname;
}

/** The hidden fields (csrf, form_key) of the first form of a page. */
export async function pageForm(baseUrl: string, path: string): Promise<Record<string, string>> {
  const text = await pageText(await fetch(`${baseUrl}${path}`));
  const fields: Record<string, string> = {};
  for (const match of text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)" ?\/?>/g)) {
    fields[match[1]!] ??= match[2]!;
  }
  return fields;
}

/** A urlencoded post without following the redirect, as a form of this service's page sends it. */
export function postForm(
  baseUrl: string,
  path: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${baseUrl}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: baseUrl, ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

/** A page's HTML with each run of whitespace as one space, as a reader sees its text. */
export async function pageText(response: Response): Promise<string> {
  return (await response.text()).replace(/\s+/g, ' ');
}

export interface PagesWorld {
  world: SubscriptionWorld;
  api: ApiClient;
  other: ApiClient;
  browser: DashboardBrowser | undefined;
}

/**
 * The world of the portal's and checkout's tests, made in beforeAll and closed in afterAll: subscriptions
 * on Temporal's time-skipping server, the account "Acme Rockets", a client of another account, and
 * Chromium when installed. Its fields are set once beforeAll has run.
 */
export function usePagesWorld(): PagesWorld {
  const pages = {} as PagesWorld;
  beforeAll(async () => {
    pages.world = await startSubscriptionWorld();
    pages.api = pages.world.api;
    const { prisma, baseUrl } = pages.world.app;
    await prisma.account.update({ where: { id: pages.world.accountId }, data: { name: 'Acme Rockets' } });
    pages.other = apiClient(baseUrl, (await createTestAccount(prisma, { name: 'Other Shop' })).apiKey);
    pages.browser = haveChromium ? await openDashboardBrowser(baseUrl, { screens: 'hosted' }) : undefined;
  });
  afterAll(async () => {
    await pages.browser?.close();
    await pages.world?.close();
  });
  return pages;
}
