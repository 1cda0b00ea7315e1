import { DAY_MS } from '../../src/lib/durations';
import {
  billed,
  cancel,
  chargedOnFinalize,
  dunningExhausted,
  initialState,
  nextAction,
  nextAttempt,
  nextBillingAt,
  newVersion,
  pause,
  periodBilled,
  periodInvoiced,
  periodToBill,
  resume,
  retryFailed,
  start,
  startDunning,
  SubscriptionRuleError,
  update,
  webhookStatus,
  type SubscriptionCreateSpec,
  type SubscriptionState,
} from '../../src/subscriptions/subscription-machine';

const NOW = Date.parse('2027-03-10T12:00:00.000Z');
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function spec(overrides: Partial<SubscriptionCreateSpec> = {}): SubscriptionCreateSpec {
  return {
    id: 'sub_test',
    accountId: 'acct_test',
    customerId: 'cus_test',
    currency: 'USD',
    interval: 'month',
    intervalCount: 1,
    collectionMethod: 'charge_automatically',
    defaultPaymentMethodId: null,
    items: [{ id: 'si_a', priceId: 'price_a', quantity: 1, taxRateIds: [] }],
    trialDays: 0,
    startDate: NOW,
    endDate: null,
    startBillingDate: null,
    ...overrides,
  };
}

function ruleError(action: () => unknown): SubscriptionRuleError {
  try {
    action();
  } catch (error) {
    if (error instanceof SubscriptionRuleError) return error;
    throw error;
  }
  throw new Error('expected a SubscriptionRuleError');
}

describe('initial status (decisions.md §7)', () => {
  it('active now, billed at once, with the start as billing_cycle_anchor', () => {
    const state = initialState(spec(), NOW);
    expect(state).toMatchObject({
      status: 'active',
      anchor: NOW,
      trialStart: null,
      trialEnd: null,
      currentPeriodStart: null,
    });
    expect(nextAction(state)).toEqual({ kind: 'bill', at: NOW, index: 0 });
  });

  it('a start_date in the past starts now: nothing is billed retroactively', () => {
    const state = initialState(spec({ startDate: NOW - 40 * DAY_MS }), NOW);
    expect(state.status).toBe('active');
    expect(state.anchor).toBe(NOW);
  });

  it('trialing with trial days; billing starts when the trial ends', () => {
    const state = initialState(spec({ trialDays: 14 }), NOW);
    expect(state).toMatchObject({
      status: 'trialing',
      trialStart: NOW,
      trialEnd: NOW + 14 * DAY_MS,
      anchor: NOW + 14 * DAY_MS,
    });
    expect(state.currentPeriodEnd).toBe(state.trialEnd);
    expect(nextAction(state)).toEqual({ kind: 'end_trial', at: NOW + 14 * DAY_MS });
  });

  it('scheduled for a future start_date, its trial counted from then', () => {
    const startDate = NOW + 5 * DAY_MS;
    const state = initialState(spec({ startDate, trialDays: 3 }), NOW);
    expect(state).toMatchObject({ status: 'scheduled', trialStart: startDate, trialEnd: startDate + 3 * DAY_MS });
    expect(nextAction(state)).toEqual({ kind: 'start', at: startDate });
    expect(start(state, startDate).status).toBe('trialing');
  });

  it('start_billing_date later than the trial end becomes the anchor', () => {
    const startBillingDate = NOW + 20 * DAY_MS;
    const state = initialState(spec({ trialDays: 14, startBillingDate }), NOW);
    expect(state.anchor).toBe(startBillingDate);
  });

  it('webhook payloads carry active, canceled or paused only', () => {
    expect(
      ['scheduled', 'trialing', 'active', 'paused', 'canceled', 'expired'].map((status) =>
        webhookStatus(status as never),
      ),
    ).toEqual(['active', 'active', 'active', 'paused', 'canceled', 'canceled']);
  });
});

describe('actions and their order', () => {
  it('an end_date at a billing instant ends the subscription before billing', () => {
    let state = billed(initialState(spec({ endDate: Date.parse('2027-04-10T12:00:00.000Z') }), NOW), 0, 'inv_1');
    expect(nextAction(state)).toEqual({ kind: 'expire', at: Date.parse('2027-04-10T12:00:00.000Z') });
    state = { ...state, endDate: null };
    expect(nextAction(state)).toEqual({ kind: 'bill', at: Date.parse('2027-04-10T12:00:00.000Z'), index: 1 });
  });

  it('cancel at period end cancels when the billed period ends, before the next invoice', () => {
    const state = billed(initialState(spec(), NOW), 0, 'inv_1');
    const canceling = cancel(state, NOW + DAY_MS, true);
    expect(canceling).toMatchObject({
      status: 'active',
      cancelAtPeriodEnd: true,
      cancelAt: Date.parse('2027-04-10T12:00:00.000Z'),
    });
    expect(nextAction(canceling)).toEqual({ kind: 'cancel', at: Date.parse('2027-04-10T12:00:00.000Z') });
    expect(cancel(state, NOW + DAY_MS, false)).toMatchObject({
      status: 'canceled',
      canceledAt: NOW + DAY_MS,
      endedAt: NOW + DAY_MS,
    });
  });

  it('cancel at period end has one rule for DELETE and PATCH: refused without a running period (paused, scheduled), never a cancel now', () => {
    const paused = pause(billed(initialState(spec(), NOW), 0, 'inv_1'), NOW + DAY_MS);
    const scheduled = initialState(spec({ startDate: NOW + 10 * DAY_MS }), NOW);
    for (const state of [paused, scheduled]) {
      expect(ruleError(() => cancel(state, NOW + 2 * DAY_MS, true))).toMatchObject({
        kind: 'conflict',
        code: 'no_current_period',
      });
      expect(ruleError(() => update(state, { cancelAtPeriodEnd: true }, NOW + 2 * DAY_MS))).toMatchObject({
        kind: 'conflict',
        code: 'no_current_period',
      });
    }
  });
});

describe('pause and resume', () => {
  it('resume moves the next billing date, the period end and the anchor by the paused time', () => {
    const active = billed(
      initialState(spec({ startDate: Date.parse('2027-01-31T00:00:00.000Z') }), Date.parse('2027-01-31T00:00:00.000Z')),
      0,
      'inv_1',
    );
    expect(iso(nextBillingAt(active))).toBe('2027-02-28T00:00:00.000Z');
    const paused = pause(active, Date.parse('2027-02-20T00:00:00.000Z'));
    expect(nextBillingAt(paused)).toBeNull();
    expect(nextAction(paused)).toBeNull();
    const resumed = resume(paused, Date.parse('2027-03-02T00:00:00.000Z'));
    expect(iso(nextBillingAt(resumed))).toBe('2027-03-10T00:00:00.000Z');
    expect(iso(resumed.currentPeriodEnd)).toBe('2027-03-10T00:00:00.000Z');
    expect(iso(resumed.anchor)).toBe('2027-03-10T00:00:00.000Z');
    expect(resumed.pausedAt).toBeNull();
  });

  it('refuses forbidden moves with a conflict', () => {
    const active = initialState(spec(), NOW);
    expect(ruleError(() => resume(active, NOW))).toMatchObject({ kind: 'conflict', code: 'subscription_not_paused' });
    const canceled = cancel(active, NOW, false);
    expect(ruleError(() => pause(canceled, NOW))).toMatchObject({ kind: 'conflict', code: 'subscription_not_active' });
    expect(ruleError(() => cancel(canceled, NOW, false))).toMatchObject({
      kind: 'conflict',
      code: 'subscription_canceled',
    });
    expect(ruleError(() => pause(initialState(spec({ trialDays: 3 }), NOW), NOW))).toMatchObject({ kind: 'conflict' });
  });
});

describe('billing a period (src/subscriptions/period-billing.ts)', () => {
  const DAY = (n: number) => NOW + n * DAY_MS;
  const created = () =>
    newVersion(
      initialState(spec({ items: [{ id: 'si_a', priceId: 'price_a', quantity: 2, taxRateIds: ['txr_1'] }] }), NOW),
    );

  it('the creation writes version 1 of the initial state; newVersion changes nothing else', () => {
    const initial = initialState(spec(), NOW);
    expect(newVersion(initial)).toEqual({ ...initial, version: 1 });
  });

  it("periodToBill: the period, what its invoice bills, and why (the first invoice is the creation's)", () => {
    const state = created();
    expect(periodToBill(state, 0)).toEqual({
      accountId: 'acct_test',
      subscriptionId: 'sub_test',
      periodStart: NOW,
      periodEnd: Date.parse('2027-04-10T12:00:00.000Z'),
      customerId: 'cus_test',
      currency: 'USD',
      collectionMethod: 'charge_automatically',
      billingReason: 'subscription_create',
      items: [{ id: 'si_a', priceId: 'price_a', quantity: 2, taxRateIds: ['txr_1'] }],
    });
    const second = periodToBill(billed(state, 0, 'inv_1'), 1);
    expect(second).toMatchObject({
      periodStart: Date.parse('2027-04-10T12:00:00.000Z'),
      periodEnd: Date.parse('2027-05-10T12:00:00.000Z'),
      billingReason: 'subscription_cycle',
    });
  });

  it('periodInvoiced: the row shows the period and its invoice, and the period is still the next to bill', () => {
    const state = created();
    const invoiced = periodInvoiced(state, 0, 'inv_1');
    expect(invoiced).toEqual({
      ...state,
      version: 2,
      latestInvoiceId: 'inv_1',
      currentPeriodStart: NOW,
      currentPeriodEnd: Date.parse('2027-04-10T12:00:00.000Z'),
    });
    expect(nextAction(invoiced)).toEqual({ kind: 'bill', at: NOW, index: 0 });
  });

  it('chargedOnFinalize: an open invoice charged automatically; not a paid or void one, nor one sent', () => {
    const state = created();
    expect(chargedOnFinalize(state, 'open')).toBe(true);
    expect(chargedOnFinalize(state, 'paid')).toBe(false);
    expect(chargedOnFinalize(state, 'void')).toBe(false);
    expect(chargedOnFinalize({ collectionMethod: 'send_invoice' }, 'open')).toBe(false);
  });

  it('periodBilled: the period billed (next period due at its end); a failed attempt 1 starts dunning', () => {
    const invoiced = periodInvoiced(created(), 0, 'inv_1');
    const paid = periodBilled(invoiced, 0, { id: 'inv_1', number: 'INV-000001' }, null);
    expect(paid).toEqual(billed(invoiced, 0, 'inv_1'));
    expect(paid).toMatchObject({ version: 3, nextPeriodIndex: 1, invoicesIssued: 1, dunning: [] });
    expect(nextAction(paid)).toEqual({ kind: 'bill', at: Date.parse('2027-04-10T12:00:00.000Z'), index: 1 });

    const failed = periodBilled(
      invoiced,
      0,
      { id: 'inv_1', number: 'INV-000001' },
      { failedAt: NOW, retryDays: [1, 3], outcome: 'pause' },
    );
    expect(failed.version).toBe(3);
    expect(failed.dunning).toEqual([
      {
        invoiceId: 'inv_1',
        invoiceNumber: 'INV-000001',
        periodStart: NOW,
        failedAt: NOW,
        retryDays: [1, 3],
        outcome: 'pause',
        attempts: 1,
        nextRetryAt: DAY(1),
      },
    ]);
    expect(
      periodBilled(invoiced, 0, { id: 'inv_1' }, { failedAt: NOW, retryDays: [], outcome: 'cancel' }).dunning[0],
    ).not.toHaveProperty('invoiceNumber');
  });
});

describe('dunning', () => {
  it('retries 1, 3 and 5 days after the failure, then is exhausted', () => {
    let state: SubscriptionState = billed(initialState(spec(), NOW), 0, 'inv_1');
    state = startDunning(state, {
      invoiceId: 'inv_1',
      periodStart: NOW,
      failedAt: NOW,
      retryDays: [1, 3, 5],
      outcome: 'cancel',
    });
    const retries: number[] = [];
    while (!dunningExhausted(state, 'inv_1')) {
      const action = nextAction(state)!;
      expect(action.kind).toBe('retry');
      retries.push((action.at - NOW) / DAY_MS);
      state = retryFailed(state, 'inv_1');
    }
    expect(retries).toEqual([1, 3, 5]);
  });

  it('resume restarts an exhausted dunning at once, its attempts counting on; a dunning still running only moves by the paused time', () => {
    let state: SubscriptionState = billed(initialState(spec(), NOW), 0, 'inv_1');
    state = startDunning(state, {
      invoiceId: 'inv_1',
      periodStart: NOW,
      failedAt: NOW,
      retryDays: [1],
      outcome: 'pause',
    });
    state = startDunning(state, {
      invoiceId: 'inv_2',
      periodStart: NOW,
      failedAt: NOW,
      retryDays: [1, 3],
      outcome: 'pause',
    });
    state = retryFailed(retryFailed(state, 'inv_1'), 'inv_2');
    expect(dunningExhausted(state, 'inv_1')).toBe(true);
    const resumedAt = NOW + 5 * DAY_MS;
    const resumed = resume(pause(state, NOW + DAY_MS), resumedAt);
    const [first, second] = resumed.dunning;
    expect(first).toMatchObject({ invoiceId: 'inv_1', attempts: 0, attemptOffset: 2, nextRetryAt: resumedAt });
    expect(nextAttempt(first!)).toBe(3);
    expect(second).toMatchObject({ invoiceId: 'inv_2', attempts: 2, nextRetryAt: NOW + 3 * DAY_MS + 4 * DAY_MS });
    expect(nextAction(resumed)).toEqual({ kind: 'retry', at: resumedAt, invoiceId: 'inv_1' });
  });

  it('with no retry days the outcome applies after the first failure', () => {
    const state = startDunning(initialState(spec(), NOW), {
      invoiceId: 'inv_1',
      periodStart: NOW,
      failedAt: NOW,
      retryDays: [],
      outcome: 'pause',
    });
    expect(dunningExhausted(state, 'inv_1')).toBe(true);
  });
});

describe('update', () => {
  it('adds, changes and removes items; unknown ids and an empty item list are refused', () => {
    const state = initialState(spec(), NOW);
    const changed = update(
      state,
      {
        items: [
          { param: 'items.0', change: { kind: 'update', id: 'si_a', quantity: 4 } },
          {
            param: 'items.1',
            change: { kind: 'add', id: 'si_b', priceId: 'price_b', quantity: 1, taxRateIds: ['txr_1'] },
          },
        ],
      },
      NOW,
    );
    expect(changed.items).toEqual([
      { id: 'si_a', priceId: 'price_a', quantity: 4, taxRateIds: [] },
      { id: 'si_b', priceId: 'price_b', quantity: 1, taxRateIds: ['txr_1'] },
    ]);
    expect(changed.version).toBe(state.version + 1);
    expect(
      ruleError(() => update(state, { items: [{ param: 'items.0', change: { kind: 'delete', id: 'si_zz' } }] }, NOW)),
    ).toMatchObject({
      kind: 'invalid',
      param: 'items.0.id',
    });
    expect(
      ruleError(() => update(state, { items: [{ param: 'items.0', change: { kind: 'delete', id: 'si_a' } }] }, NOW)),
    ).toMatchObject({
      kind: 'invalid',
      param: 'items',
    });
  });
});

describe('usage billed in arrears (docs/decisions.md §43)', () => {
  const metered = { id: 'si_m', priceId: 'price_m', quantity: 0, taxRateIds: [], metered: true as const };
  const HOUR = 60 * 60 * 1000;

  it('a period that closes usage is billed after the grace, with the closed period to bill; the first one is not', () => {
    const state = initialState(spec({ items: [spec().items[0]!, metered], usageGraceMs: HOUR }), NOW);
    expect(nextAction(state)).toEqual({ kind: 'bill', at: NOW, index: 0 });
    expect(periodToBill(state, 0).usagePeriod).toBeUndefined();
    const first = billed(state, 0, 'inv_1');
    const periodEnd = Date.parse('2027-04-10T12:00:00.000Z');
    expect(nextAction(first)).toEqual({ kind: 'bill', at: periodEnd + HOUR, index: 1 });
    expect(periodToBill(first, 1).usagePeriod).toEqual({ start: NOW, end: periodEnd });
    // Without a grace of its own the state waits the default hour; without metered items, not at all.
    const { usageGraceMs: _grace, ...older } = first;
    expect(nextAction(older)).toEqual({ kind: 'bill', at: periodEnd + HOUR, index: 1 });
    const licensedOnly = billed(initialState(spec(), NOW), 0, 'inv_1');
    expect(nextAction(licensedOnly)).toEqual({ kind: 'bill', at: periodEnd, index: 1 });
    expect(periodToBill(licensedOnly, 1).usagePeriod).toBeUndefined();
  });

  it("a trial's usage is not billed: the first invoice after it closes no usage period", () => {
    const trialing = initialState(spec({ items: [metered], trialDays: 7 }), NOW);
    const ended = { ...trialing, status: 'active' as const };
    expect(nextAction(ended)).toEqual({ kind: 'bill', at: NOW + 7 * DAY_MS, index: 0 });
    expect(periodToBill(ended, 0).usagePeriod).toBeUndefined();
  });

  it('an item moved onto a metered price holds quantity 0 and is marked metered; moved back it needs its quantity', () => {
    const state = initialState(spec(), NOW);
    const moved = update(
      state,
      { items: [{ param: 'items.0', change: { kind: 'update', id: 'si_a', priceId: 'price_m', metered: true } }] },
      NOW,
    );
    expect(moved.items).toEqual([{ id: 'si_a', priceId: 'price_m', quantity: 0, taxRateIds: [], metered: true }]);
    const back = update(
      moved,
      {
        items: [
          { param: 'items.0', change: { kind: 'update', id: 'si_a', priceId: 'price_a', quantity: 2, metered: false } },
        ],
      },
      NOW,
    );
    expect(back.items).toEqual([{ id: 'si_a', priceId: 'price_a', quantity: 2, taxRateIds: [] }]);
  });
});
