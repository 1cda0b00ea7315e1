import { createApiKey } from '../../src/accounts/account.service';
import { DEFAULT_AFTER_DAYS, getPaymentPlanSettings } from '../../src/payment-plans/payment-plan.service';
import { apiClient, auditEntriesOf, createTestAccount } from '../support/harness';
import { createCustomer } from '../support/payments';
import { expectStatus, startPlanWorld, type PlanWorld } from '../support/payment-plans';

/**
 * GET and PUT /settings/payment-plans (docs/api.md "Payment plan settings"): off by default, any role
 * reads them, a superadmin changes them (not behind the payment plans guard: that is how they are
 * turned on), refusals change nothing, one account's change leaves the others' alone, and each
 * change is in the audit log.
 */
let world: PlanWorld;

beforeAll(async () => {
  world = await startPlanWorld();
});
afterAll(() => world.close());

/** An account with payment plans off (a new account's default) and a key of each role on it. */
async function newAccount(name: string) {
  const { accountId, apiKey } = await createTestAccount(world.app.prisma, { name, role: 'superadmin' });
  const keyOf = async (role: 'standard' | 'developer') =>
    apiClient(world.app.baseUrl, (await createApiKey(world.app.prisma, accountId, role)).api_key);
  return {
    accountId,
    superadmin: apiClient(world.app.baseUrl, apiKey),
    developer: await keyOf('developer'),
    standard: await keyOf('standard'),
  };
}

const planBody = (customer: string) => ({
  customer,
  total_amount: 1000,
  currency: 'USD',
  installments_count: 4,
  interval: 'month',
});

const stored = (accountId: string) => getPaymentPlanSettings(world.app.prisma, accountId);

describe('GET /settings/payment-plans', () => {
  it('answers off and DEFAULT_AFTER_DAYS for a new account, to every role', async () => {
    const account = await newAccount('Fresh');
    for (const client of [account.superadmin, account.developer, account.standard]) {
      expect(expectStatus(await client.get('/settings/payment-plans'), 200)).toEqual({
        object: 'payment_plan_settings',
        enabled: false,
        default_after_days: DEFAULT_AFTER_DAYS,
      });
    }
    expect(DEFAULT_AFTER_DAYS).toBe(14);
  });

  it('refuses query parameters like the other routes', async () => {
    const account = await newAccount('Query');
    expect((await account.standard.get('/settings/payment-plans?expand=x')).body.error).toMatchObject({
      code: 'parameter_unknown',
      param: 'expand',
    });
  });
});

describe('PUT /settings/payment-plans', () => {
  it('a superadmin turns payment plans on (the guard no longer refuses), sets the days, and turns them off', async () => {
    const account = await newAccount('Switched on');
    const customer = await createCustomer(account.superadmin);
    const refused = await account.superadmin.post('/payment-plans', planBody(customer.id));
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'feature_not_enabled' });
    expect(refused.body.error.message).toMatch(/PUT \/settings\/payment-plans/);

    expect(expectStatus(await account.superadmin.put('/settings/payment-plans', { enabled: true }), 200)).toEqual({
      object: 'payment_plan_settings',
      enabled: true,
      default_after_days: DEFAULT_AFTER_DAYS,
    });
    // Only what is given changes.
    expect(
      expectStatus(await account.superadmin.put('/settings/payment-plans', { default_after_days: 30 }), 200),
    ).toEqual({ object: 'payment_plan_settings', enabled: true, default_after_days: 30 });
    expect(expectStatus(await account.standard.get('/settings/payment-plans'), 200)).toMatchObject({
      enabled: true,
      default_after_days: 30,
    });

    // Plans can be created now, and take the account's days.
    const plan = expectStatus(await account.developer.post('/payment-plans', planBody(customer.id)), 201);
    expect(plan.default_after_days).toBe(30);
    expect(expectStatus(await account.standard.get('/payment-plans'), 200).data.map((p: any) => p.id)).toEqual([
      plan.id,
    ]);

    // Both at once; then off: new plans refused, the existing one still readable.
    expect(
      expectStatus(
        await account.superadmin.put('/settings/payment-plans', { enabled: false, default_after_days: 1 }),
        200,
      ),
    ).toEqual({ object: 'payment_plan_settings', enabled: false, default_after_days: 1 });
    expect((await account.superadmin.post('/payment-plans', planBody(customer.id))).status).toBe(403);
    expect((await account.superadmin.get(`/payment-plans/${plan.id}`)).status).toBe(200);
    expect(
      expectStatus(await account.superadmin.put('/settings/payment-plans', { default_after_days: 365 }), 200),
    ).toMatchObject({ default_after_days: 365 });
  });

  it('refuses developer and standard keys with 403, changing nothing', async () => {
    const account = await newAccount('Roles');
    for (const client of [account.developer, account.standard]) {
      const response = await client.put('/settings/payment-plans', { enabled: true });
      expect(response.status).toBe(403);
      expect(response.body.error).toMatchObject({ type: 'permission_error', code: 'insufficient_role' });
      expect(response.body.error.message).toMatch(/superadmin/);
    }
    expect(await stored(account.accountId)).toMatchObject({ enabled: false, default_after_days: DEFAULT_AFTER_DAYS });
    expect(await world.app.prisma.paymentPlanSettings.count({ where: { accountId: account.accountId } })).toBe(0);
  });

  it.each([
    [{ enabled: 'yes' }, 'enabled', 'parameter_invalid'],
    [{ enabled: null }, 'enabled', 'parameter_invalid'],
    [{ enabled: true, default_after_days: -1 }, 'default_after_days', 'parameter_invalid'],
    [{ enabled: true, default_after_days: 0 }, 'default_after_days', 'parameter_invalid'],
    [{ enabled: true, default_after_days: 1.5 }, 'default_after_days', 'parameter_invalid'],
    [{ enabled: true, default_after_days: 366 }, 'default_after_days', 'parameter_invalid'],
    [{ enabled: true, default_after_days: '30' }, 'default_after_days', 'parameter_invalid'],
    [{ enabled: true, default_after_day: 30 }, 'default_after_day', 'parameter_unknown'],
    [{}, 'enabled', 'parameter_invalid'],
  ])('%j -> 400 naming %s, changing nothing', async (body, param, code) => {
    const account = await newAccount('Invalid');
    const response = await account.superadmin.put('/settings/payment-plans', body);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ type: 'invalid_request_error', param, code });
    expect(response.body.error.message).toContain(param);
    expect(await stored(account.accountId)).toMatchObject({ enabled: false, default_after_days: DEFAULT_AFTER_DAYS });
    expect(await world.app.prisma.paymentPlanSettings.count({ where: { accountId: account.accountId } })).toBe(0);
  });

  it('an empty body says what to give', async () => {
    const account = await newAccount('Empty');
    const response = await account.superadmin.put('/settings/payment-plans', {});
    expect(response.body.error.message).toMatch(/enabled, default_after_days or both/);
  });

  it("changes the caller's account only", async () => {
    const mine = await newAccount('Mine');
    const other = await newAccount('Other');
    await world.app.prisma.paymentPlanSettings.create({ data: { accountId: other.accountId, defaultAfterDays: 7 } });
    expectStatus(await mine.superadmin.put('/settings/payment-plans', { enabled: true, default_after_days: 45 }), 200);
    expect(expectStatus(await other.standard.get('/settings/payment-plans'), 200)).toEqual({
      object: 'payment_plan_settings',
      enabled: false,
      default_after_days: 7,
    });
    expect(await stored(other.accountId)).toMatchObject({ enabled: false, default_after_days: 7 });
    // The account the world's plans run on is untouched too.
    expect(await stored(world.accountId)).toMatchObject({ enabled: true, default_after_days: DEFAULT_AFTER_DAYS });
    // And the other account's change leaves mine alone.
    expectStatus(await other.superadmin.put('/settings/payment-plans', { default_after_days: 2 }), 200);
    expect(await stored(mine.accountId)).toMatchObject({ enabled: true, default_after_days: 45 });
  });

  it('records each change in the audit log (refusals are not writes)', async () => {
    const account = await newAccount('Audited');
    expect((await account.developer.put('/settings/payment-plans', { enabled: true })).status).toBe(403);
    expect((await account.superadmin.put('/settings/payment-plans', { enabled: 'yes' })).status).toBe(400);
    const saved = await account.superadmin.put('/settings/payment-plans', { enabled: true, default_after_days: 21 });
    expectStatus(saved, 200);
    const key = await world.app.prisma.apiKey.findFirstOrThrow({
      where: { accountId: account.accountId, role: 'superadmin' },
    });
    const entries = await auditEntriesOf(account.superadmin, '/settings/payment-plans', 1);
    expect(entries).toEqual([
      expect.objectContaining({
        object: 'audit_entry',
        actor: expect.objectContaining({ type: 'api_key', id: key.id }),
        method: 'PUT',
        route: '/settings/payment-plans',
        path: '/settings/payment-plans',
        status: 200,
        request_id: saved.headers.get('x-request-id'),
      }),
    ]);
    // Reads are not recorded.
    await account.superadmin.get('/settings/payment-plans');
    expect(await auditEntriesOf(account.superadmin, '/settings/payment-plans', 1)).toHaveLength(1);
  });
});
