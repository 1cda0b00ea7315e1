import { condition, getExternalWorkflowHandle, log, proxyActivities, setHandler } from '@temporalio/workflow';
import type { TestClockActivities } from '../activities/test-clocks';
import { advanceClockSignal, clockCaughtUpSignal } from './clock';
import { HEARTBEAT_TIMEOUT } from './activity-options';
import { TEST_CLOCK_RESEND_MS, testClockWorkflowId, type TestClockWorkflowInput } from './test-clock-contract';

const activities = proxyActivities<TestClockActivities>({
  startToCloseTimeout: '1 minute',
  heartbeatTimeout: HEARTBEAT_TIMEOUT,
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * One advance of a test clock (workflow id `test-clock:<clock id>`, one run per advance): tells every
 * subscription and payment plan workflow on the clock the new time (signal advanceTestClock), gathers
 * their testClockCaughtUp answers (each sends it once everything due up to that time is done, in
 * order), then marks the clock ready. The clock's workflows are listed again until no new one appears
 * (one created as the advance began); one that does not answer within TEST_CLOCK_RESEND_MS is told
 * again, and one that has ended meanwhile drops out of the list.
 */
export async function testClockWorkflow(input: TestClockWorkflowInput): Promise<void> {
  const caughtUp = new Set<string>();
  setHandler(clockCaughtUpSignal, ({ workflowId, time }) => {
    if (time >= input.time) caughtUp.add(workflowId);
  });
  const ackWorkflowId = testClockWorkflowId(input.clockId);

  for (;;) {
    const waiting = (await activities.listTestClockWorkflows({ clockId: input.clockId })).filter((id) => !caughtUp.has(id));
    if (waiting.length === 0) break;
    await Promise.all(
      waiting.map(async (workflowId) => {
        try {
          await getExternalWorkflowHandle(workflowId).signal(advanceClockSignal, { time: input.time, ackWorkflowId });
        } catch (error) {
          // The workflow has ended: nothing left to catch up.
          log.info('test clock: workflow not running', { workflowId, error: String(error) });
          caughtUp.add(workflowId);
        }
      }),
    );
    await condition(() => waiting.every((id) => caughtUp.has(id)), TEST_CLOCK_RESEND_MS);
  }
  await activities.finishTestClockAdvance({ clockId: input.clockId, time: input.time });
}
