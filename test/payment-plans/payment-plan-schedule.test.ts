import { addMonths, dueDates, splitInstallments } from '../../src/payment-plans/schedule';
import { missedDeposit, nextWork } from '../../workflows/payment-plan-schedule';
import type { PlanSnapshot } from '../../workflows/payment-plan-contract';

const DAY = 24 * 3600 * 1000;

describe('splitInstallments', () => {
  it.each([
    [100, 3, [34, 33, 33]],
    [2, 2, [1, 1]],
    [10001, 4, [2501, 2500, 2500, 2500]],
    [99_999_999, 60, [...Array(39).fill(1_666_667), ...Array(21).fill(1_666_666)]],
    [99_999_999, 2, [50_000_000, 49_999_999]],
  ])('%i cents over %i installments', (total, count, expected) => {
    const amounts = splitInstallments(total, count);
    expect(amounts).toEqual(expected);
    expect(amounts.reduce((a, b) => a + b, 0)).toBe(total);
  });

  it('adds up exactly and never differs by more than a cent, for every count', () => {
    for (const total of [60, 61, 119, 1_000_003, 99_999_999]) {
      for (let count = 2; count <= 60 && count <= total; count++) {
        const amounts = splitInstallments(total, count);
        expect(amounts.reduce((a, b) => a + b, 0)).toBe(total);
        expect(Math.max(...amounts) - Math.min(...amounts)).toBeLessThanOrEqual(1);
        expect(Math.min(...amounts)).toBeGreaterThan(0);
      }
    }
  });

  it('refuses a total that would make a zero installment (1 cent over 2)', () => {
    expect(() => splitInstallments(1, 2)).toThrow(RangeError);
  });
});

describe('dueDates', () => {
  it('keeps the day of month, clamped to short months, counted from the start', () => {
    const start = new Date(Date.UTC(2027, 0, 31, 15, 30));
    expect(dueDates(start, 4, 'month', 1).map((date) => date.toISOString())).toEqual([
      '2027-01-31T15:30:00.000Z',
      '2027-02-28T15:30:00.000Z',
      '2027-03-31T15:30:00.000Z',
      '2027-04-30T15:30:00.000Z',
    ]);
    expect(addMonths(new Date(Date.UTC(2028, 0, 31)), 1).toISOString()).toBe('2028-02-29T00:00:00.000Z');
    expect(addMonths(new Date(Date.UTC(2027, 10, 15)), 3).toISOString()).toBe('2028-02-15T00:00:00.000Z');
  });

  it('steps weeks times interval_count', () => {
    const start = new Date(Date.UTC(2027, 5, 1));
    expect(dueDates(start, 3, 'week', 2).map((date) => date.toISOString().slice(0, 10))).toEqual([
      '2027-06-01',
      '2027-06-15',
      '2027-06-29',
    ]);
  });
});

describe('nextWork (the workflow schedule)', () => {
  const now = Date.UTC(2027, 0, 1);
  const snapshot = (
    over: Partial<PlanSnapshot>,
    statuses: PlanSnapshot['installments'][number]['status'][] = ['paid', 'scheduled', 'scheduled'],
  ): PlanSnapshot => ({
    planId: 'pp_1',
    status: 'active',
    hasPaymentMethod: true,
    pastDueAt: null,
    defaultAfterDays: 14,
    installments: statuses.map((status, index) => ({
      number: index + 1,
      dueAt: now + (index - 1) * 30 * DAY,
      status,
      held: false,
      automaticAttempts: 0,
    })),
    openTerminalPayments: [],
    ...over,
  });

  it('charges a due installment of an active plan with a card, else waits for its date', () => {
    expect(nextWork(snapshot({}), now)).toEqual({ kind: 'charge', number: 2, attempt: 1 });
    expect(nextWork(snapshot({}), now - 1)).toEqual({
      kind: 'wait',
      wakeAt: now,
      action: 'charge_installment',
      number: 2,
    });
  });

  it('lets an installment fall overdue when there is no card, or the plan is past_due or defaulted', () => {
    expect(nextWork(snapshot({ hasPaymentMethod: false }), now)).toEqual({ kind: 'overdue', number: 2 });
    expect(nextWork(snapshot({ status: 'defaulted' }), now)).toEqual({ kind: 'overdue', number: 2 });
  });

  it('defaults a past_due plan defaultAfterDays after it became past_due', () => {
    const pastDue = snapshot({ status: 'past_due', pastDueAt: now - 20 * DAY }, ['paid', 'failed', 'scheduled']);
    expect(nextWork(pastDue, now - 7 * DAY)).toEqual({ kind: 'wait', wakeAt: now - 6 * DAY, action: 'default' });
    expect(nextWork(pastDue, now - 6 * DAY)).toEqual({ kind: 'default', pastDueAt: now - 20 * DAY });
  });

  it('charges only the deposit of a pending plan, and only with a card', () => {
    const pending = snapshot({ status: 'pending' }, ['scheduled', 'scheduled']);
    expect(nextWork(pending, now)).toEqual({ kind: 'charge', number: 1, attempt: 1 });
    expect(nextWork({ ...pending, hasPaymentMethod: false }, now + 90 * DAY)).toEqual({
      kind: 'wait',
      wakeAt: null,
      action: null,
    });
    // Without the patch (histories recorded before it) a failed deposit left the plan waiting with no timer.
    expect(nextWork(snapshot({ status: 'pending' }, ['failed', 'scheduled']), now + 90 * DAY)).toEqual({
      kind: 'wait',
      wakeAt: null,
      action: null,
    });
  });

  it('settles a pending plan left with a failed deposit (older code) by marking it missed again', () => {
    const missed = snapshot({ status: 'pending' }, ['failed', 'scheduled']);
    expect(missedDeposit(missed)).toBe(true);
    expect(nextWork(missed, now, { settleMissedDeposit: true })).toEqual({ kind: 'overdue', number: 1 });
    expect(missedDeposit(snapshot({ status: 'pending' }, ['scheduled', 'scheduled']))).toBe(false);
    expect(missedDeposit(snapshot({ status: 'past_due' }, ['failed', 'scheduled']))).toBe(false);
  });

  it('skips installments a payment in flight holds, and does nothing once completed or canceled', () => {
    const held = snapshot({});
    held.installments[1]!.held = true;
    expect(nextWork(held, now)).toEqual({
      kind: 'wait',
      wakeAt: now + 30 * DAY,
      action: 'charge_installment',
      number: 3,
    });
    expect(nextWork(snapshot({ status: 'canceled' }), now)).toEqual({ kind: 'wait', wakeAt: null, action: null });
  });
});
