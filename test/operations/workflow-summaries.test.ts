import {
  billingStatusOf,
  isoTimes,
  planTimerSummary,
  subscriptionTimerSummary,
  webhookRetrySummary,
} from '../../workflows/summaries';

// The words the workflows write beside their timers (workflows/summaries.ts); the integration test
// (workflow-display.test.ts) reads them back from real histories.

const at = Date.UTC(2027, 0, 31, 10);

describe('timer summaries', () => {
  it('name what a subscription waits for, and the day', () => {
    const dunning = [{ invoiceId: 'in_1', attempts: 2, retryDays: [1, 3, 5] }];
    expect(subscriptionTimerSummary({ kind: 'bill', at, index: 3 }, { dunning: [] })).toBe('renewal 2027-01-31 UTC');
    expect(subscriptionTimerSummary({ kind: 'end_trial', at }, { dunning: [] })).toBe('trial ends 2027-01-31 UTC');
    expect(subscriptionTimerSummary({ kind: 'retry', at, invoiceId: 'in_1' }, { dunning: dunning as never })).toBe(
      'dunning retry 2 of 3 on 2027-01-31 UTC (in_1), after charge attempt 2 FAILED',
    );
    expect(
      subscriptionTimerSummary(
        { kind: 'retry', at, invoiceId: 'in_1' },
        { dunning: [{ ...dunning[0], attempts: 0 }] as never },
      ),
    ).toBe('charge after resume on 2027-01-31 UTC (in_1)');
    // A round started on resume counts its attempts on from the earlier ones.
    expect(
      subscriptionTimerSummary(
        { kind: 'retry', at, invoiceId: 'in_1' },
        { dunning: [{ ...dunning[0], attempts: 1, attemptOffset: 4 }] as never },
      ),
    ).toBe('dunning retry 1 of 3 on 2027-01-31 UTC (in_1), after charge attempt 5 FAILED');
  });

  it('name a payment plan installment by its number and the plan size', () => {
    const snapshot = { installments: new Array(6).fill({}) };
    expect(planTimerSummary({ wakeAt: at, action: 'charge_installment', number: 3 }, snapshot, at)).toBe(
      'installment 3 of 6 due 2027-01-31 UTC',
    );
    expect(planTimerSummary({ wakeAt: at, action: 'default' }, snapshot, at)).toBe(
      'default 2027-01-31 UTC (still past due)',
    );
    expect(planTimerSummary({ wakeAt: null, action: null }, snapshot, at)).toBe(
      're-read the plan 2027-01-31 UTC (nothing scheduled)',
    );
    // After a declined charge the wait says it failed: the charge activity itself completed (drawn green).
    const declined = {
      installments: [
        { number: 1, status: 'paid' },
        { number: 2, status: 'failed' },
        { number: 3, status: 'scheduled' },
      ],
    };
    expect(planTimerSummary({ wakeAt: at, action: 'default' }, declined as never, at)).toBe(
      'default 2027-01-31 UTC (still past due), after installment 2 charge FAILED',
    );
  });

  it('name a webhook retry and its wait', () => {
    expect(webhookRetrySummary(3, 6, 45_000)).toBe('webhook retry 2 of 5 in 45 s');
    expect(webhookRetrySummary(6, 6, 1_800_000)).toBe('webhook retry 5 of 5 in 30 min');
  });
});

it('isoTimes spells each time in ISO-8601 and leaves nulls out', () => {
  expect(isoTimes({ nextBillingAt: at, trialEnd: null, 'nextAction.at': undefined })).toEqual({
    nextBillingAt: '2027-01-31T10:00:00.000Z',
  });
});

it('BillingStatus is past_due while an active subscription has an invoice in dunning', () => {
  const entry = { invoiceId: 'in_1' } as never;
  expect(billingStatusOf({ status: 'active', dunning: [entry] })).toBe('past_due');
  expect(billingStatusOf({ status: 'active', dunning: [] })).toBe('active');
  expect(billingStatusOf({ status: 'paused', dunning: [entry] })).toBe('paused');
});
