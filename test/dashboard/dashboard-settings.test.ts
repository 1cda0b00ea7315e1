import type { Page } from 'playwright-core';
import { browserTest, haveChromium, openDashboardBrowser, type DashboardBrowser } from '../support/browser';
import { createTestAccount, startTestApp, type TestApp, type TestAccount } from '../support/harness';
import { createTestUser, openSettings } from '../support/dashboard';

/**
 * The Settings screen in headless Chromium (docs/api.md "Dashboard team"): a superadmin sets the
 * account's time zone and reads times in it, changes the dunning schedule (the API's refusal shown),
 * turns payment plans on (the API's refusal of a bad day count shown; on after a reload), invites someone who joins in a second browser and signs in, changes a role behind a confirm, and is
 * refused removing the last superadmin; the invitee as a standard user sees the read-only screen.
 */
const browserIt = browserTest('test/dashboard/dashboard-settings.test.ts');

let app: TestApp;
let account: TestAccount;
let browser: DashboardBrowser | undefined;
let admin: { email: string; password: string };

beforeAll(async () => {
  app = await startTestApp();
  account = await createTestAccount(app.prisma, { name: 'Acme Rockets' });
  admin = await createTestUser(app.prisma, account.accountId, { role: 'superadmin', name: 'Ada Admin' });
  if (haveChromium) browser = await openDashboardBrowser(app.baseUrl);
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

/** Every screen fits 390 px: no sideways scrolling, no table scrolling inside its card (docs/decisions.md §35). */
const screen = (page: Page, name: string) => browser!.screenFits(page, name);

describe('the Settings screen', () => {
  browserIt(
    'time zone, dunning, proration, payment plans, an invitation accepted in a second browser, a role change and the last superadmin',
    async () => {
      const page = await browser!.newPage();
      await browser!.signIn(page, admin);
      await openSettings(page);
      const accountSection = page.getByRole('region', { name: 'Account', exact: true });
      await accountSection.getByText('Dates and times are shown in UTC').waitFor();
      await screen(page, 'settings-superadmin');

      // The time zone: saved, in the session, and every time on the screen shown in it with its abbreviation.
      await accountSection.getByLabel('Time zone', { exact: true }).selectOption('America/New_York');
      await accountSection.getByRole('button', { name: 'Save account', exact: true }).click();
      await accountSection.getByText('Saved. Dates and times are shown in America/New_York.').waitFor();
      await accountSection
        .getByText(/Dates and times are shown in America\/New_York: it is now .* (EST|EDT)\./)
        .waitFor();
      expect((await app.prisma.account.findUniqueOrThrow({ where: { id: account.accountId } })).timeZone).toBe(
        'America/New_York',
      );

      // Dunning: a day that is not a number is refused by the form before it asks (the typed client sends
      // numbers only), the API's refusal is shown as it words it, then a valid schedule is saved.
      const dunning = page.getByRole('region', { name: 'Dunning', exact: true });
      await dunning.getByLabel(/Retry on days/).fill('2, soon');
      await dunning.getByRole('button', { name: 'Save dunning', exact: true }).click();
      await dunning.getByRole('alert').getByText('retry_days: "soon" is not a whole number of days.').waitFor();
      await dunning.getByLabel(/Retry on days/).fill('5, 2');
      await dunning.getByRole('button', { name: 'Save dunning', exact: true }).click();
      await dunning
        .getByRole('alert')
        .getByText(/retry_days.*strictly ascending/)
        .waitFor();
      await dunning.getByLabel(/Retry on days/).fill('2, 5, 9');
      await dunning.getByLabel('Pause the subscription', { exact: true }).check();
      await dunning.getByRole('button', { name: 'Save dunning', exact: true }).click();
      await dunning.getByText(/^Saved\./).waitFor();

      // Proration: the account's default (`none` for this test account) changed, as GET /settings/proration then says.
      const proration = page.getByRole('region', { name: 'Proration', exact: true });
      expect(await proration.getByLabel(/Do not prorate/).isChecked()).toBe(true);
      await proration.getByLabel(/Credit and charge the rest of the period/).check();
      await proration.getByRole('button', { name: 'Save proration', exact: true }).click();
      await proration.getByText(/^Saved\./).waitFor();
      await screen(page, 'settings-proration');
      expect((await app.prisma.account.findUniqueOrThrow({ where: { id: account.accountId } })).prorationBehavior).toBe(
        'create_prorations',
      );

      // Payment plans: off for a new account; a bad day count refused as the API words it, then turned on,
      // as the page still says after a reload and GET /settings/payment-plans answers.
      const plans = page.getByRole('region', { name: 'Payment plans', exact: true });
      const plansOn = plans.getByLabel('Payment plans on', { exact: true });
      const afterDays = plans.getByLabel(/Days a past due plan waits/);
      expect(await plansOn.isChecked()).toBe(false);
      expect(await afterDays.inputValue()).toBe('14');
      await plansOn.check();
      await afterDays.fill('0');
      await plans.getByRole('button', { name: 'Save payment plans', exact: true }).click();
      await plans
        .getByRole('alert')
        .getByText(/default_after_days.*at least 1/)
        .waitFor();
      expect(
        (await app.prisma.account.findUniqueOrThrow({ where: { id: account.accountId } })).paymentPlansEnabled,
      ).toBe(false);
      await afterDays.fill('30');
      await plans.getByRole('button', { name: 'Save payment plans', exact: true }).click();
      await plans.getByText(/^Saved\. Payment plans are on/).waitFor();
      await page.reload();
      await openSettings(page);
      await plans.getByRole('button', { name: 'Save payment plans', exact: true }).waitFor();
      expect(await plans.getByLabel('Payment plans on', { exact: true }).isChecked()).toBe(true);
      expect(await plans.getByLabel(/Days a past due plan waits/).inputValue()).toBe('30');
      await screen(page, 'settings-payment-plans');
      expect(
        (await app.prisma.account.findUniqueOrThrow({ where: { id: account.accountId } })).paymentPlansEnabled,
      ).toBe(true);
      expect(
        (await app.prisma.paymentPlanSettings.findUniqueOrThrow({ where: { accountId: account.accountId } }))
          .defaultAfterDays,
      ).toBe(30);

      // An invitation: its one-time link shown, the pending row's expiry in the account's zone.
      const team = page.getByRole('region', { name: 'Team', exact: true });
      await team.getByLabel('Email', { exact: true }).fill('Grace.Hopper@Example.com');
      await team.getByLabel('Invite as', { exact: true }).selectOption('developer');
      await team.getByRole('button', { name: 'Invite', exact: true }).click();
      const link = await team.getByLabel('Invitation link for grace.hopper@example.com', { exact: true }).inputValue();
      expect(link).toMatch(/^http:\/\/.*\/dashboard\/invitations\/[A-Za-z0-9_-]{43}$/);
      const pending = team.getByRole('row', { name: /grace\.hopper@example\.com/ });
      await pending.getByText(/(EST|EDT)$/).waitFor();
      await screen(page, 'settings-invited');

      // The invitee, in a browser of their own (no cookie of the admin's), sets name and password.
      const invitee = await browser!.newPage();
      // The link is under PUBLIC_URL (the service's public address); this test's app listens on its own port.
      const local = link.replace(/^https?:\/\/[^/]+/, app.baseUrl);
      await invitee.goto(local);
      await invitee.getByRole('heading', { name: 'Join Acme Rockets', exact: true }).waitFor();
      // No session yet, and still the expiry in the inviting account's zone.
      await invitee.getByText(/The link works until .* (EST|EDT)\./).waitFor();
      await screen(invitee, 'settings-invitation');
      await invitee.getByLabel('Your name', { exact: true }).fill('Grace Hopper');
      await invitee.getByLabel(/Choose a password/).fill('cobol forever and ever');
      await invitee.getByRole('button', { name: 'Join', exact: true }).click();
      await invitee.getByRole('heading', { name: /^Welcome/ }).waitFor();
      // Signed in on the account; logging out and in again works with the chosen password.
      await invitee.getByRole('button', { name: 'Log out', exact: true }).click();
      await invitee.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
      await browser!.signIn(invitee, { email: 'grace.hopper@example.com', password: 'cobol forever and ever' });
      // The link works once.
      await invitee.goto(local);
      await invitee.getByText('This invitation has been used already: sign in instead.').waitFor();

      // A role change behind a confirm; the invitee's next request has the new role.
      await page.reload();
      await openSettings(page);
      await team.getByLabel('Role of Grace Hopper', { exact: true }).selectOption('standard');
      await page.getByRole('dialog', { name: 'Make Grace Hopper standard?', exact: true }).waitFor();
      await screen(page, 'settings-confirm-role');
      await page.getByRole('dialog').getByRole('button', { name: 'Change role', exact: true }).click();
      await team.getByText('Grace Hopper is now standard.').waitFor();
      expect(
        (
          await app.prisma.membership.findFirstOrThrow({
            where: { accountId: account.accountId, user: { name: 'Grace Hopper' } },
          })
        ).role,
      ).toBe('standard');

      // The last superadmin cannot remove themself: the API's 409 is shown.
      await team.getByRole('button', { name: 'Remove Ada Admin', exact: true }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Remove member', exact: true }).click();
      await team
        .getByRole('alert')
        .getByText('You are the last superadmin of this account: make another member superadmin first.')
        .waitFor();
      await screen(page, 'settings-last-superadmin');

      // The invitee, now standard: the account read only, the profile and its password form, no team.
      await invitee.goto(`${app.baseUrl}/dashboard`);
      await openSettings(invitee);
      const readOnly = invitee.getByRole('region', { name: 'Account', exact: true });
      await readOnly.getByText('America/New_York', { exact: true }).waitFor();
      // Payment plans read only: on, 30 days, nothing to save.
      const readOnlyPlans = invitee.getByRole('region', { name: 'Payment plans', exact: true });
      await readOnlyPlans.getByText('On', { exact: true }).waitFor();
      await readOnlyPlans.getByText('30 days past due').waitFor();
      expect(await readOnlyPlans.getByRole('button', { name: 'Save payment plans', exact: true }).count()).toBe(0);
      expect(await invitee.getByRole('region', { name: 'Team', exact: true }).count()).toBe(0);
      expect(await invitee.getByRole('region', { name: 'Dunning', exact: true }).count()).toBe(0);
      const profile = invitee.getByRole('region', { name: 'Your profile', exact: true });
      await profile.getByLabel('Current password', { exact: true }).fill('not my password');
      await profile.getByLabel(/New password/).fill('a brand new password');
      await profile.getByRole('button', { name: 'Change password', exact: true }).click();
      await profile.getByRole('alert').getByText('The current password is incorrect.').waitFor();
      await screen(invitee, 'settings-standard');
      expect(browser!.offSite).toEqual([]);
    },
    120_000,
  );
});
