import {
  condition,
  defineSignal,
  getExternalWorkflowHandle,
  log,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import {
  TEST_CLOCK_SIGNALS,
  type ClockAdvance,
  type ClockCaughtUp,
  type TestClockBinding,
  type TestClockCarry,
} from './test-clock-contract';

/**
 * The one place workflow code reads the clock. Inside a workflow the Temporal SDK replaces `Date`
 * with workflow time: the time of the current workflow task, recorded in history and identical on
 * replay (and skipped ahead by the time-skipping test server). Everywhere else in workflows/ the
 * linter forbids Date.now(), so every read of time is this deterministic one.
 */
export function workflowNow(): number {
  // eslint-disable-next-line no-restricted-properties -- deterministic inside the workflow sandbox (see above)
  return Date.now();
}

export const advanceClockSignal = defineSignal<[ClockAdvance]>(TEST_CLOCK_SIGNALS.advance);
export const clockCaughtUpSignal = defineSignal<[ClockCaughtUp]>(TEST_CLOCK_SIGNALS.caughtUp);

/**
 * The time a billing workflow runs on: the workflow's own (wall) time, or a test clock's.
 *
 * - `now()`: the current time.
 * - `due(at)`: whether something scheduled at `at` is due. On a test clock, everything up to the
 *   time the clock was advanced to is due, one after the other: the clock's time moves to `at`,
 *   so what happens then is dated then (an invoice of day 30 is dated day 30, not the end of the advance).
 * - `sleep(wake, at, summary)`: waits until `wake()` holds or `at` comes (null: no time). On the
 *   wall clock a timer, whose summary (what falls due then) the Web UI shows; on a test clock
 *   nothing is due before the advance's time, so the clock's time moves there, the advance is
 *   acknowledged, and the workflow waits for `wake()` or the next advance.
 */
export interface WorkflowTime {
  readonly testClock: TestClockCarry | null;
  now(): number;
  due(at: number): boolean;
  sleep(wake: () => boolean, at: number | null, summary?: string): Promise<boolean>;
  /** Acknowledges an advance still owed: the workflow ends, so it has done everything. */
  release(): Promise<void>;
}

export const wallTime: WorkflowTime = {
  testClock: null,
  now: workflowNow,
  due: (at) => at <= workflowNow(),
  sleep: (wake, at, summary) =>
    at === null ? condition(wake).then(() => true) : condition(wake, at - workflowNow(), { summary }),
  release: () => Promise.resolve(),
};

/**
 * The workflow's time: the wall clock without a binding, else the test clock's. Registers the
 * advance signal's handler on a clock (no handler, no command: workflows without a clock replay as before).
 */
export function workflowTime(binding: TestClockBinding | TestClockCarry | undefined): WorkflowTime {
  if (!binding) return wallTime;
  const clock: TestClockCarry = { target: binding.time, ack: null, ...binding };

  async function acknowledge(): Promise<void> {
    const ack = clock.ack;
    if (!ack || clock.time < ack.time) return;
    clock.ack = null;
    try {
      await getExternalWorkflowHandle(ack.ackWorkflowId).signal(clockCaughtUpSignal, {
        workflowId: workflowInfo().workflowId,
        time: ack.time,
      });
    } catch (error) {
      // The clock's workflow is gone (the clock was deleted): nobody waits for the answer.
      log.warn('test clock acknowledgement not delivered', { clockId: clock.id, error: String(error) });
    }
  }

  setHandler(advanceClockSignal, (advance) => {
    if (advance.time > clock.target) clock.target = advance.time;
    clock.ack = advance;
  });

  return {
    testClock: clock,
    now: () => clock.time,
    due(at) {
      if (at > clock.target) return false;
      if (at > clock.time) clock.time = at;
      return true;
    },
    async sleep(wake, at) {
      if (clock.target > clock.time && (at === null || at > clock.target)) clock.time = clock.target;
      await acknowledge();
      const seen = clock.target;
      await condition(() => wake() || clock.target !== seen || (at !== null && at <= clock.target));
      return wake();
    },
    async release() {
      // The workflow ends: nothing of it will fall due any more, so it has caught up with any time.
      clock.time = Math.max(clock.time, clock.target);
      await acknowledge();
    },
  };
}
