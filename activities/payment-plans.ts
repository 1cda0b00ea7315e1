import { ApplicationFailure } from '@temporalio/common';
import { chargeFailure } from '../src/payments';
import { Context } from '@temporalio/activity';
import { ApiError } from '../src/http/errors';
import type { Db } from '../src/db/prisma';
import type { Gateways } from '../src/payments';
import { atTime, type ClockTimed } from '../src/lib/clock-time';
import { readAttemptPayment, snapshotOf } from '../src/payment-plans';
import { applyPlanRequest, markDefaulted, markInstallmentOverdue } from '../src/payment-plans';
import { chargeInstallment, installmentAttemptKey, type AutomaticChargeOutcome } from '../src/payment-plans';
import { chargeReceipt, findEntry, type ChargeReceipt } from '../src/transactions';
import type {
  PaymentPlanRequestArgs,
  PaymentPlanRequestResult,
  PaymentPlanRequestKind,
  PlanSnapshot,
} from '../workflows/payment-plan-contract';

export interface PaymentPlanActivityDeps {
  prisma: Db;
  gateways: Gateways;
}

/**
 * The plan's row is written in the same transaction that starts the workflow, so the first read
 * may come a moment before the commit: a missing plan is looked for again for a few seconds (then
 * retried by Temporal a few times), and only then is the workflow told it does not exist.
 */
const VISIBILITY_WAIT_MS = 3_000;
const MISSING_PLAN_ATTEMPTS = 5;

/**
 * How long the plan's workflow waits before asking again about an installment's payment its processor holds (a
 * bank debit: four days; docs/decisions.md §40). Its settlement is recorded by the processor's report, the
 * settlement timer or the reconciliation whenever it comes; the workflow's next try reads it, up to this late.
 * The activity's retry policy (a minute at most) stays for an answer that was lost.
 */
export const HELD_PAYMENT_RECHECK_MS = 60 * 60 * 1000;

/**
 * A charge's error as the activity's: when the processor holds the attempt's payment (pending with its reference),
 * a retry after HELD_PAYMENT_RECHECK_MS rather than the policy's minute, which would ask the processor 5,760 times
 * over a bank debit's four days; any other error as it was.
 */
async function heldPaymentRetry(error: unknown, entry: { status: string; gatewayReference: string | null } | null) {
  const unavailable = error instanceof ApiError && error.code === 'gateway_unavailable';
  if (!unavailable || entry?.status !== 'pending' || !entry.gatewayReference) return error;
  return ApplicationFailure.create({
    message: `${error.message} The processor holds payment ${entry.gatewayReference}: asked again later.`,
    type: 'PaymentHeldByProcessor',
    nextRetryDelay: HELD_PAYMENT_RECHECK_MS,
  });
}

export function createPaymentPlanActivities({ prisma, gateways }: PaymentPlanActivityDeps) {
  async function snapshot(planId: string): Promise<PlanSnapshot> {
    const deadline = Date.now() + VISIBILITY_WAIT_MS;
    for (;;) {
      const found = await snapshotOf(prisma, planId);
      if (found) return found;
      if (Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const message = `Payment plan ${planId} does not exist`;
    if (Context.current().info.attempt >= MISSING_PLAN_ATTEMPTS)
      throw ApplicationFailure.nonRetryable(message, 'PaymentPlanMissing');
    throw ApplicationFailure.retryable(message, 'PaymentPlanNotYetVisible');
  }

  return {
    /** Reads the plan as the workflow needs it. */
    async syncPaymentPlan(input: { planId: string }): Promise<PlanSnapshot> {
      return snapshot(input.planId);
    },

    /**
     * Charges installment `number`, attempt `attempt` (idempotent by the attempt's key). `charge` names
     * what was charged (amount, card, transaction) for the Web UI: null when nothing was charged
     * (skipped, card detached); absent from results recorded before it was added.
     */
    async chargePaymentPlanInstallment(
      input: {
        planId: string;
        number: number;
        attempt: number;
        at: number;
      } & ClockTimed,
    ): Promise<{ outcome: AutomaticChargeOutcome; snapshot: PlanSnapshot; charge?: ChargeReceipt | null }> {
      const attemptKey = installmentAttemptKey(input.number, input.attempt);
      const entryOfAttempt = async () => {
        const payment = await readAttemptPayment(prisma, input.planId, attemptKey);
        return payment?.transactionId ? findEntry(prisma, payment.accountId, payment.transactionId) : null;
      };
      let outcome: AutomaticChargeOutcome;
      try {
        outcome = await atTime(input.clockTime, () =>
          chargeInstallment(prisma, gateways, { ...input, at: new Date(input.at) }),
        );
      } catch (error) {
        throw await heldPaymentRetry(error, await entryOfAttempt());
      }
      const entry = await entryOfAttempt();
      const answer = { outcome, snapshot: await snapshot(input.planId), charge: await chargeReceipt(prisma, entry) };
      if (outcome !== 'failed') return answer;
      throw chargeFailure(`installment ${input.number} charge attempt ${input.attempt}`, entry?.failureCode, answer);
    },

    async markPaymentPlanInstallmentOverdue(
      input: { planId: string; number: number; at: number } & ClockTimed,
    ): Promise<PlanSnapshot> {
      await atTime(input.clockTime, () =>
        markInstallmentOverdue(prisma, input.planId, input.number, new Date(input.at)),
      );
      return snapshot(input.planId);
    },

    async defaultPaymentPlan(
      input: { planId: string; pastDueAt: number; at: number } & ClockTimed,
    ): Promise<PlanSnapshot> {
      await atTime(input.clockTime, () => markDefaulted(prisma, input.planId, input.pastDueAt, new Date(input.at)));
      return snapshot(input.planId);
    },

    /** Carries out a request (an update or an older signal); a refusal is answered in `result`, not thrown. */
    async applyPaymentPlanRequest(
      input: {
        planId: string;
        /** The request's kind, under the name its input has carried since requests were signals (recorded in histories). */
        signal: PaymentPlanRequestKind;
        args: PaymentPlanRequestArgs;
        at: number;
      } & ClockTimed,
    ): Promise<{ result: PaymentPlanRequestResult; snapshot: PlanSnapshot }> {
      const result = await atTime(input.clockTime, () =>
        applyPlanRequest(prisma, input.planId, input.signal, input.args, new Date(input.at), gateways),
      );
      return { result, snapshot: await snapshot(input.planId) };
    },
  };
}

export type PaymentPlanActivities = ReturnType<typeof createPaymentPlanActivities>;
