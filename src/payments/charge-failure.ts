import { ApplicationFailure } from '@temporalio/common';
import { applicationFailureOf } from '../subscriptions/subscription-rejection';

/**
 * A charge attempt that failed (declined, or no usable payment method) fails its activity with this
 * type, not retried, so the Temporal Web UI draws it failed; the failure's one detail is the
 * activity's answer, which the workflow goes on with (answerOf). The message names the processor's
 * code and no card detail: failure messages are not encrypted, details are (the payload codec).
 * Histories recorded before completed such activities with the answer; both read the same in the
 * workflow, with the same commands after, so they replay unchanged. Safe to import in workflow code.
 */
export const CHARGE_FAILED = 'ChargeFailed';

export function chargeFailure<T>(what: string, failureCode: string | null | undefined, answer: T): ApplicationFailure {
  return ApplicationFailure.create({
    type: CHARGE_FAILED,
    message: `${what} FAILED (${failureCode ?? 'no usable payment method'})`,
    nonRetryable: true,
    details: [answer],
  });
}

/** The answer of a charge activity: its result, or the detail of its CHARGE_FAILED failure. */
export async function chargeAnswer<T>(charge: Promise<T>): Promise<T> {
  try {
    return await charge;
  } catch (error) {
    const failed = applicationFailureOf(error, CHARGE_FAILED);
    if (failed?.details?.[0] !== undefined) return failed.details[0] as T;
    throw error;
  }
}
