import { Worker } from '@temporalio/worker';
import { billingDataConverter } from '../../src/temporal/payload-codec';
import { quietRuntime, readHistories } from '../support/subscriptions';

// The committed histories in test/fixtures/histories were recorded by the subscription scenario
// tests (monthly renewals across a continue-as-new, trial, scheduled start, end_date, pause and
// resume, cancels, quantity change, dunning outcomes, worker crash). Replaying them through the
// current workflow code fails when a change is not replay-compatible with subscriptions already
// running in production: such a change needs workflow versioning (patched()), not a silent edit.
// The webhook-*.json histories are deliverWebhook runs recorded with the code before its attempts
// became local activities (a delivery done at once, one done after a retry, one waiting on its retry
// timer): deliveries started before that change must go on replaying. webhook-relay-first-*.json
// are deliveries whose attempt 1 the relay made (test/webhooks/webhook-delivery.test.ts records them);
// webhook-relay-late-first-attempt.json one whose slow attempt 1 the relay did not wait for, recorded
// before retries counted their delay from the attempt's end, webhook-relay-retry-from-attempt-end.json
// and webhook-rules-retry-after-relay-timeout.json after it (docs/decisions.md §10).
// payment-plan-*.json and webhook-rules-*.json were recorded by the workflow rules tests with mocked
// activities (test/payment-plans/payment-plan-workflow-rules.test.ts, test/webhooks/webhook-workflow-rules.test.ts): plans
// charged to completion, defaulted, and carrying out refused and applied requests.
// *-local-steps.json were recorded after a period's billing became local activities in one workflow task
// (docs/decisions.md §39); the histories without it keep the activity tasks of the runs before.
// reminders-trial-renewal.json is a subscription on a test clock that sent its trial's and its renewal's
// reminders (test/emails/reminder-emails.test.ts, docs/decisions.md §31). unused-time-cap.json is a prorated
// cancel whose credit the period's credit note capped (test/subscriptions/proration-credit-cap.test.ts, §25).
// email-receipt-activities.json is a receipt's sendEmail run recorded while its email was written by an activity
// task, email-receipt-local-prepare.json one after that became a local activity (test/emails/emails.test.ts, §30).

describe('subscription workflow replay', () => {
  beforeAll(quietRuntime);
  const histories = readHistories();

  it('has recorded histories to replay', () => {
    expect(histories.length).toBeGreaterThanOrEqual(10);
  });

  it('replays every recorded history with the current workflow code', async () => {
    const failures: string[] = [];
    let replayed = 0;
    for await (const result of Worker.runReplayHistories(
      // The worker's data converter: histories recorded before the encryption codec hold plain payloads,
      // which it passes through; later ones hold encrypted payloads, which it opens.
      { workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! }, dataConverter: billingDataConverter() },
      histories.map((entry) => ({ workflowId: entry.workflowId, history: entry.history })),
    )) {
      // Results come back in the order the histories were given.
      const { name } = histories[replayed]!;
      replayed += 1;
      if (result.error) failures.push(`${name} (${result.workflowId}): ${result.error.message}`);
    }
    expect(failures).toEqual([]);
    expect(replayed).toBe(histories.length);
  });
});
