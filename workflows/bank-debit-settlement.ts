import { proxyActivities, sleep } from '@temporalio/workflow';
import type { BankDebitActivities } from '../activities/bank-debits';
import { HEARTBEAT_TIMEOUT } from './activity-options';
import { DAY_MS } from '../src/lib/durations';
import { workflowTime } from './clock';
import type { TestClockBinding } from './test-clock-contract';

/**
 * How long the simulated gateway's bank debit stays `pending` before its bank answers (docs/decisions.md §40):
 * four days, as an ACH debit's settlement and the window for an early return (R01, R02) take.
 */
export const BANK_DEBIT_SETTLEMENT_MS = 4 * DAY_MS;

/** The settlement is recorded whatever the database's mood: retried until it is, the debit pending meanwhile. */
const settlement = proxyActivities<BankDebitActivities>({
  startToCloseTimeout: '1 minute',
  heartbeatTimeout: HEARTBEAT_TIMEOUT,
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes' },
});

export interface BankDebitSettlementInput {
  accountId: string;
  /** The simulated gateway's charge id (`ch_...`): the workflow's id is derived from it, so one debit has one timer. */
  chargeId: string;
  /**
   * The customer's test clock and its time when the debit was made: the four days are the clock's, and an advance
   * waits for the settlement like for the clock's subscriptions (docs/decisions.md §40). Absent: a server timer.
   */
  testClock?: TestClockBinding;
}

/** The workflow id of a debit's settlement timer: derived from its charge, so that starting it again is refused. */
export function bankDebitSettlementId(chargeId: string): string {
  return `bank-debit-settlement:${chargeId}`;
}

/**
 * `bank-debit-settlement:<charge>`: the simulated bank's answer to a debit it accepted, days later, on a durable
 * timer. Its activity settles the debit at the simulator (succeeded, or failed with the test account's ACH return
 * code) and records that outcome as a processor's report, through the payment's own recorder.
 */
export async function bankDebitSettlement(input: BankDebitSettlementInput): Promise<'recorded' | 'ignored'> {
  if (input.testClock) return settleOnTestClock({ ...input, testClock: input.testClock });
  await sleep(BANK_DEBIT_SETTLEMENT_MS, { summary: `the bank settles debit ${input.chargeId}` });
  return settlement.settleBankDebit.executeWithOptions({ summary: `settle debit ${input.chargeId}` }, [input]);
}

/**
 * A debit of a customer on a test clock: the bank answers when the clock reaches the debit's time + four days, dated
 * then, and the clock's advance is acknowledged once the outcome is recorded (workflows/clock.ts). Only debits made on
 * a clock take this path, so the recorded histories of server timers replay unchanged.
 */
async function settleOnTestClock(
  input: BankDebitSettlementInput & { testClock: TestClockBinding },
): Promise<'recorded' | 'ignored'> {
  const { testClock, ...debit } = input;
  const time = workflowTime(testClock);
  const clock = time.testClock!;
  const settlesAt = testClock.time + BANK_DEBIT_SETTLEMENT_MS;
  // A debit made during an advance starts at that advance's time, which its signal then does not move: the advance
  // is still owed its acknowledgement, which the next sleep sends.
  const advanceOwed = () => clock.ack !== null && clock.ack.time <= clock.time;
  while (!time.due(settlesAt)) await time.sleep(advanceOwed, settlesAt);
  const outcome = await settlement.settleBankDebit.executeWithOptions({ summary: `settle debit ${input.chargeId}` }, [
    { ...debit, clockTime: time.now() },
  ]);
  await time.release();
  return outcome;
}
