import type { Page, Response } from 'playwright-core';
import {
  browserTest,
  ensureDashboardBuilt,
  haveChromium,
  openDashboardBrowser,
  type DashboardBrowser,
} from '../support/browser';
import { createTestAccount, startTestApp, type TestAccount, type TestApp } from '../support/harness';
import { createTestUser } from '../support/dashboard';
import { createApiKey, rotateApiKey } from '../../src/accounts/account.service';
import { createDestination } from '../../src/webhooks/destination.service';
import { newId } from '../../src/lib/ids';

/**
 * The Developers section in headless Chromium (test/support/browser.ts: axe-core and screenshots):
 * API keys (a secret shown once), webhook destinations, delivery logs; hidden from a standard user.
 */
const browserIt = browserTest('test/dashboard/dashboard-developers.test.ts');

let app: TestApp;
let account: TestAccount;
let browser: DashboardBrowser | undefined;
let developer: { email: string; password: string };
let standard: { email: string; password: string };
/** A key rotated before the test: rotating it again is refused by the API. */
let rotatedKeyPrefix: string;
/** A key the test rotates in the page. */
let freshKeyPrefix: string;
let eventId: string;
/** A second destination, with a long URL, and the deliveries made to it. */
const LONG_URL = 'https://hooks.example.net/billing/webhooks/v1/receiver-for-the-accounting-team?source=billing';
let longDestinationId: string;
/** Another account's destination: filtering the logs by it finds nothing. */
let strangerDestinationId: string;

beforeAll(async () => {
  ensureDashboardBuilt();
  app = await startTestApp();
  account = await createTestAccount(app.prisma, { name: 'Rocket Labs' });
  developer = await createTestUser(app.prisma, account.accountId, { role: 'developer', name: 'Dora Developer' });
  standard = await createTestUser(app.prisma, account.accountId, { role: 'standard', name: 'Sam Standard' });
  const key = await createApiKey(app.prisma, account.accountId, 'standard');
  await rotateApiKey(app.prisma, key.key_id, 3_600_000);
  rotatedKeyPrefix = key.api_key.slice(0, 12);
  freshKeyPrefix = (await createApiKey(app.prisma, account.accountId, 'standard')).api_key.slice(0, 12);

  // A delivery log to read: rows as the relay and the delivery workflow write them (test/webhooks cover those).
  const destination = await createDestination(app.prisma, account.accountId, { url: 'https://example.org/billing' });
  const now = Date.now();
  const deliveries = Array.from({ length: 22 }, (_, index) => {
    const id = newId('event');
    return {
      id: newId('webhookDelivery'),
      accountId: account.accountId,
      eventId: id,
      eventType: index === 21 ? 'customer.created' : 'invoice.paid',
      destinationId: destination.id,
      payload: {
        id,
        event: index === 21 ? 'customer.created' : 'invoice.paid',
        createdAt: new Date(now - (21 - index) * 60_000).toISOString(),
        data: index === 21 ? { id: 'cus_ada', name: 'Ada Lovelace' } : { id: `in_${index}` },
      },
      status: index === 21 ? 'retry' : 'success',
      attemptCount: index === 21 ? 2 : 1,
      lastStatusCode: index === 21 ? 503 : 200,
      createdAt: new Date(now - (21 - index) * 60_000),
    };
  });
  await app.prisma.webhookDelivery.createMany({ data: deliveries });
  // Three older deliveries to a second destination, one of them failed.
  const long = await createDestination(app.prisma, account.accountId, { url: LONG_URL });
  longDestinationId = long.id;
  await app.prisma.webhookDelivery.createMany({
    data: [0, 1, 2].map((index) => {
      const id = newId('event');
      return {
        id: newId('webhookDelivery'),
        accountId: account.accountId,
        eventId: id,
        eventType: 'product.created',
        destinationId: long.id,
        payload: {
          id,
          event: 'product.created',
          createdAt: new Date(now).toISOString(),
          data: { id: `prod_${index}` },
        },
        status: index === 0 ? 'failure' : 'success',
        attemptCount: 1,
        lastStatusCode: index === 0 ? 410 : 200,
        createdAt: new Date(now - (40 + index) * 60_000),
      };
    }),
  });
  const stranger = await createTestAccount(app.prisma, { name: 'Stranger' });
  strangerDestinationId = (
    await createDestination(app.prisma, stranger.accountId, { url: 'https://stranger.example/h' })
  ).id;
  const latest = deliveries[21]!;
  eventId = latest.eventId;
  for (const attempt of [1, 2])
    await app.prisma.webhookAttempt.create({
      data: {
        id: newId('webhookAttempt'),
        deliveryId: latest.id,
        attemptNumber: attempt,
        scheduledAt: new Date(now - 60_000 + attempt * 10_000),
        sentAt: new Date(now - 60_000 + attempt * 10_000),
        url: 'https://example.org/billing',
        outcome: 'retryable',
        statusCode: 503,
        durationMs: 40 + attempt,
      },
    });
  if (haveChromium) browser = await openDashboardBrowser(app.baseUrl);
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

const screen = (page: Page, name: string) => browser!.screenFits(page, name);

async function keyIdOf(prefix: string): Promise<string> {
  return (await app.prisma.apiKey.findFirstOrThrow({ where: { keyPrefix: prefix } })).id;
}

/** Every answer the page received, to check that no secret comes back after its first showing. */
function recordAnswers(page: Page): { url: string; text: string }[] {
  const answers: { url: string; text: string }[] = [];
  page.on('response', (response: Response) => {
    void response.text().then(
      (text) => answers.push({ url: `${response.request().method()} ${response.url()}`, text }),
      () => undefined,
    );
  });
  return answers;
}

describe('the Developers section', () => {
  browserIt(
    'API keys: a key created (its secret shown once, copied), one revoked, one rotated, a second rotation refused',
    async () => {
      const page = await browser!.newPage();
      const answers = recordAnswers(page);
      await browser!.signIn(page, developer);
      await page.getByRole('link', { name: 'Developers', exact: true }).click();
      await page.getByRole('heading', { name: 'API keys', exact: true }).waitFor();
      await page
        .getByRole('cell', { name: /^sk_test_/ })
        .first()
        .waitFor();
      await screen(page, 'developers-keys');

      // A developer may issue standard and developer keys, not superadmin ones.
      const roles = await page.getByLabel('Role of the new key', { exact: true }).locator('option').allTextContents();
      expect(roles).toEqual(['standard', 'developer']);
      await page.getByLabel('Role of the new key', { exact: true }).selectOption('developer');
      await page.getByRole('button', { name: 'Create key', exact: true }).click();
      const shown = page.getByRole('textbox', { name: 'New developer key', exact: true });
      await shown.waitFor();
      const secret = await shown.inputValue();
      expect(secret).toMatch(/^sk_test_[A-Za-z0-9]{40}$/);
      await screen(page, 'developers-key-created');
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
      await page.getByRole('button', { name: 'Copy', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'Copied to the clipboard.' }).waitFor();
      await expect(page.evaluate<string>('navigator.clipboard.readText()')).resolves.toBe(secret);
      await page.getByRole('button', { name: 'Done, I have copied it', exact: true }).click();
      await shown.waitFor({ state: 'detached' });
      expect(await page.content()).not.toContain(secret);
      const hint = `${secret.slice(0, 12)}…`;
      await page.getByText(hint, { exact: true }).waitFor();

      // Revoke it, from the keyboard: the dialog asks first, Escape keeps the key.
      const revoke = page.getByRole('button', { name: `Revoke key ${hint}`, exact: true });
      await revoke.focus();
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog', { name: `Revoke key ${hint}?`, exact: true });
      await dialog.waitFor();
      await screen(page, 'developers-key-revoke');
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      await revoke.click();
      await dialog.getByRole('button', { name: 'Revoke key', exact: true }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `Key ${hint} revoked.` })
        .waitFor();
      await page.getByRole('row').filter({ hasText: hint }).locator('.badge', { hasText: 'revoked' }).waitFor();
      await expect(page.getByRole('button', { name: `Revoke key ${hint}`, exact: true }).count()).resolves.toBe(0);

      // The key rotated before: a second rotation is refused, and the dialog says why.
      await page.getByRole('button', { name: `Rotate key ${rotatedKeyPrefix}…`, exact: true }).click();
      const rotate = page.getByRole('dialog', { name: `Rotate key ${rotatedKeyPrefix}…?`, exact: true });
      await rotate.getByRole('button', { name: 'Rotate key', exact: true }).click();
      await expect(rotate.getByRole('alert').innerText()).resolves.toMatch(
        /already rotated to key_\w+, which still works/,
      );
      await screen(page, 'developers-key-rotate-refused');
      await rotate.getByRole('button', { name: 'Keep it as it is', exact: true }).click();
      await rotate.waitFor({ state: 'detached' });

      // A rotation: the successor's secret shown once, the old key working until the overlap ends.
      await page.getByRole('button', { name: `Rotate key ${freshKeyPrefix}…`, exact: true }).click();
      await page
        .getByRole('dialog', { name: `Rotate key ${freshKeyPrefix}…?`, exact: true })
        .getByRole('button', { name: 'Rotate key', exact: true })
        .click();
      const successor = page.getByRole('textbox', { name: 'New standard key', exact: true });
      const rotatedSecret = await successor.inputValue();
      expect(rotatedSecret).toMatch(/^sk_test_/);
      await expect(page.locator('.secret-once').innerText()).resolves.toContain(`It replaces ${freshKeyPrefix}…`);
      await page.getByRole('button', { name: 'Done, I have copied it', exact: true }).click();
      await successor.waitFor({ state: 'detached' });
      await page
        .getByRole('row')
        .filter({ hasText: `${freshKeyPrefix}…` })
        .locator('.badge', { hasText: 'expiring' })
        .waitFor();

      // Nothing the page received but the creation and the rotation holds a secret, nor does a reload.
      await page.reload();
      await page.getByText(hint, { exact: true }).waitFor();
      const html = await page.content();
      for (const value of [secret, rotatedSecret]) expect(html).not.toContain(value);
      const holding = (value: string) =>
        answers.filter((answer) => answer.text.includes(value)).map((answer) => answer.url);
      expect(holding(secret)).toEqual([`POST ${app.baseUrl}/api-keys`]);
      expect(holding(rotatedSecret)).toEqual([`POST ${app.baseUrl}/api-keys/${await keyIdOf(freshKeyPrefix)}/rotate`]);
      expect(browser!.offSite).toEqual([]);
      await page.close();
    },
  );

  browserIt(
    'webhooks: a destination created (secret once), disabled, its secret rolled, enabled, its URL edited, another deleted; a delivery log read',
    async () => {
      const page = await browser!.newPage();
      const answers = recordAnswers(page);
      await browser!.signIn(page, developer);
      await page.goto(`${app.baseUrl}/dashboard/developers/webhooks`);
      await page.getByRole('heading', { name: 'Webhook destinations', exact: true }).waitFor();

      // A loopback URL the API refuses: its message says what is wrong and how to allow it in development.
      await page.getByLabel('Endpoint URL', { exact: true }).fill('http://localhost:9/hooks');
      await page.getByRole('button', { name: 'Add destination', exact: true }).click();
      const refusal = await page.getByRole('alert').innerText();
      expect(refusal).toContain("'url': must not point to localhost, a loopback host");
      expect(refusal).toContain('WEBHOOK_ALLOW_PRIVATE=true (docs/configuration.md)');
      await screen(page, 'developers-webhook-private-refused');

      await page.getByLabel('Endpoint URL', { exact: true }).fill('https://example.com/hooks');
      await page.getByRole('button', { name: 'Add destination', exact: true }).click();
      const shown = page.getByRole('textbox', { name: 'Signing secret', exact: true });
      await shown.waitFor();
      const secret = await shown.inputValue();
      expect(secret).toMatch(/^whsec_/);
      await screen(page, 'developers-webhook-created');
      await page.getByRole('button', { name: 'Done, I have copied it', exact: true }).click();
      await shown.waitFor({ state: 'detached' });
      expect(await page.content()).not.toContain(secret);

      const actions = page.getByRole('group', { name: 'Actions for https://example.com/hooks', exact: true });
      await actions.getByRole('button', { name: 'Disable', exact: true }).click();
      const disable = page.getByRole('dialog', { name: 'Disable?', exact: true });
      await disable.getByRole('button', { name: 'Disable', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'Disabled: https://example.com/hooks' }).waitFor();
      await actions.getByRole('button', { name: 'Enable', exact: true }).waitFor();
      await screen(page, 'developers-webhooks');

      await actions.getByRole('button', { name: 'Roll secret', exact: true }).click();
      await page
        .getByRole('dialog', { name: 'Roll secret?', exact: true })
        .getByRole('button', { name: 'Roll secret', exact: true })
        .click();
      const rolled = page.getByRole('textbox', { name: 'New signing secret', exact: true });
      await rolled.waitFor();
      const next = await rolled.inputValue();
      expect(next).toMatch(/^whsec_/);
      expect(next).not.toBe(secret);
      await page.getByRole('button', { name: 'Done, I have copied it', exact: true }).click();
      await rolled.waitFor({ state: 'detached' });
      const listed = await (await page.request.get(`${app.baseUrl}/webhook/destination`)).text();
      expect(listed).toContain('"status":"disabled"');
      for (const value of [secret, next]) expect(listed).not.toContain(value);

      // Enabled again (no dialog: nothing is lost by it), and the API agrees.
      await actions.getByRole('button', { name: 'Enable', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'Enabled: https://example.com/hooks' }).waitFor();
      await actions.getByRole('button', { name: 'Disable', exact: true }).waitFor();
      const destinations = (await (await page.request.get(`${app.baseUrl}/webhook/destination`)).json()) as {
        url: string;
        status: string;
      }[];
      expect(destinations.find((destination) => destination.url === 'https://example.com/hooks')?.status).toBe(
        'enabled',
      );

      // Its URL changed, then the other destination deleted, each behind its dialog.
      await actions.getByRole('button', { name: 'Edit URL', exact: true }).click();
      const edit = page.getByRole('dialog', { name: 'Edit URL?', exact: true });
      await edit.getByLabel('URL', { exact: true }).fill('https://example.com/hooks/v2');
      await edit.getByRole('button', { name: 'Edit URL', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'URL changed: https://example.com/hooks/v2' }).waitFor();
      await page
        .getByRole('group', { name: 'Actions for https://example.org/billing', exact: true })
        .getByRole('button', { name: 'Delete', exact: true })
        .click();
      await page
        .getByRole('dialog', { name: 'Delete?', exact: true })
        .getByRole('button', { name: 'Delete', exact: true })
        .click();
      await page.getByRole('status').filter({ hasText: 'Deleted: https://example.org/billing' }).waitFor();
      await page
        .getByRole('group', { name: 'Actions for https://example.org/billing', exact: true })
        .waitFor({ state: 'detached' });
      const holding = (value: string) =>
        answers.filter((answer) => answer.text.includes(value)).map((answer) => answer.url.split(' ')[0]);
      expect(holding(secret)).toEqual(['POST']);
      expect(holding(next)).toEqual(['POST']);
      expect(await page.content()).not.toMatch(/whsec_/);

      await page.getByRole('link', { name: 'Delivery logs', exact: true }).click();
      await page.getByRole('heading', { name: 'Delivery logs', exact: true }).waitFor();
      await page.getByText('Page 1 of 2').waitFor();
      const show = page.getByRole('button', { name: `Show payload of customer.created ${eventId}`, exact: true });
      await show.click();
      const payload = page.getByLabel(`Payload of ${eventId}`, { exact: true });
      await expect(payload.innerText()).resolves.toContain('"name": "Ada Lovelace"');
      await expect(page.getByRole('row').nth(1).innerText()).resolves.toMatch(
        /customer\.created[\s\S]*retry[\s\S]*HTTP 503/i,
      );
      // Each row names its destination by URL: the deleted one's still, marked so.
      const latestRow = page.getByRole('row').nth(1);
      await expect(latestRow.getByRole('cell').nth(1).innerText()).resolves.toBe('example.org/billing\ndeleted');
      await screen(page, 'developers-logs');
      await page.getByRole('button', { name: 'Next', exact: true }).click();
      await page.getByText('Page 2 of 2').waitFor();
      const longCell = page.getByRole('cell', { name: /^hooks\.example\.net\/bil.*…/ }).first();
      await longCell.waitFor();
      await expect(longCell.getAttribute('title')).resolves.toBe(LONG_URL);
      const shortLong = (await longCell.innerText()).trim();
      expect(shortLong.length).toBeLessThanOrEqual(40);

      // Filtered by a destination picked among the account's (not the deleted one, nor another account's).
      const filter = page.getByLabel('Destination', { exact: true });
      const choices = await filter.locator('option').allTextContents();
      expect(choices).toEqual([
        'All destinations',
        expect.stringMatching(/^hooks\.example\.net\/billing\/webhooks.*….*source=billing$/),
        'example.com/hooks/v2',
      ]);
      await filter.selectOption(longDestinationId);
      await page.waitForURL(`**/developers/logs?destination=${longDestinationId}`);
      await page.getByRole('navigation', { name: 'Pages', exact: true }).waitFor({ state: 'detached' });
      await expect(page.getByRole('row').count()).resolves.toBe(4);
      for (const cell of await page.getByRole('row').locator('td:nth-child(2)').all())
        await expect(cell.getAttribute('title')).resolves.toBe(LONG_URL);
      await screen(page, 'developers-logs-destination');
      // The status tabs keep the destination.
      await page.getByRole('link', { name: 'failure', exact: true }).click();
      await page.waitForURL(`**/developers/logs?status=failure&destination=${longDestinationId}`);
      await page
        .getByRole('row', { name: /success/ })
        .first()
        .waitFor({ state: 'detached' });
      await expect(page.getByRole('row').count()).resolves.toBe(2);
      await expect(page.getByRole('row').nth(1).innerText()).resolves.toMatch(
        /product\.created[\s\S]*failure[\s\S]*HTTP 410/i,
      );
      await page.getByRole('link', { name: 'pending', exact: true }).click();
      await page.getByText(`No delivery to ${shortLong} with status pending.`, { exact: true }).waitFor();
      await filter.selectOption('');
      await page.waitForURL('**/developers/logs?status=pending');
      await page.getByText('No delivery is pending.', { exact: true }).waitFor();

      // Another account's destination, put in the address by hand, finds nothing.
      await page.goto(`${app.baseUrl}/dashboard/developers/logs?destination=${strangerDestinationId}`);
      await page.getByText(`No delivery to ${strangerDestinationId}.`, { exact: true }).waitFor();
      await expect(filter.inputValue()).resolves.toBe(strangerDestinationId);
      expect(browser!.offSite).toEqual([]);
      await page.close();
    },
  );

  browserIt('is not shown to a standard user, and its address is not found', async () => {
    const page = await browser!.newPage(390);
    await browser!.signIn(page, standard);
    await expect(page.getByRole('navigation', { name: 'Main', exact: true }).innerText()).resolves.not.toContain(
      'Developers',
    );
    await page.goto(`${app.baseUrl}/dashboard/developers`);
    await page.getByRole('heading', { name: 'Page not found', exact: true }).waitFor();
    await page.close();
  });
});
