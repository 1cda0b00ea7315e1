import { condition, getExternalWorkflowHandle, log, proxyActivities, setHandler } from '@temporalio/workflow';
import type { TestClockActivities } from '../activities/test-clocks';
import { advanceClockSignal, clockCaughtUpSignal } from './clock';
import { HEARTBEAT_TIMEOUT } from './activity-options';
import { TEST_CLOCK_RESEND_MS, testClockWorkflowId, type TestClockWorkflowInput } from './test-clock-contract';
import { isoTime } from './summaries';

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
  const to = `${input.clockId} to ${isoTime(input.time)}`;

  for (;;) {
    const listed = await activities.listTestClockWorkflows.executeWithOptions(
      { summary: `list the workflows on clock ${input.clockId}` },
      [{ clockId: input.clockId }],
    );
    const waiting = listed.filter((id) => !caughtUp.has(id));
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
    await condition(() => waiting.every((id) => caughtUp.has(id)), TEST_CLOCK_RESEND_MS, {
      summary: `wait for ${waiting.length} workflow(s) to reach ${to}; then tell them again`,
    });
  }
  await activities.finishTestClockAdvance.executeWithOptions({ summary: `mark the advance of ${to} done` }, [
    { clockId: input.clockId, time: input.time },
  ]);
}
