/**
 * Test clocks (src/test-clocks/): the messages between the clock's workflow `test-clock:<id>` and
 * the subscription and payment plan workflows that run on its time. Shared by workflows and API.
 */
export const TEST_CLOCK_WORKFLOW_TYPE = 'testClockWorkflow';

export function testClockWorkflowId(clockId: string): string {
  return `test-clock:${clockId}`;
}

/** A workflow on a test clock: the clock, and the time (Unix ms) the workflow has been told to reach. */
export interface TestClockBinding {
  id: string;
  time: number;
}

/** What a workflow carries over continue-as-new on a test clock: where it is, where it was told to go, who waits for it. */
export interface TestClockCarry extends TestClockBinding {
  target: number;
  ack: ClockAdvance | null;
}

/** Sent to a workflow on the clock: move to `time`, then signal `caughtUp` to `ackWorkflowId`. */
export interface ClockAdvance {
  time: number;
  ackWorkflowId: string;
}

/** Sent back to the clock's workflow once everything due up to `time` is done. */
export interface ClockCaughtUp {
  workflowId: string;
  time: number;
}

export const TEST_CLOCK_SIGNALS = {
  advance: 'advanceTestClock',
  caughtUp: 'testClockCaughtUp',
} as const;

/** Input of `test-clock:<id>`: one run per advance. */
export interface TestClockWorkflowInput {
  clockId: string;
  time: number;
}

/** Every this often the clock's workflow lists its workflows again and re-sends the advance to the ones that did not answer. */
export const TEST_CLOCK_RESEND_MS = 30_000;
