import { DAY_MS } from '../src/lib/durations';
import { FINAL_PLAN_STATUSES, type PaymentPlanWorkflowState, type PlanSnapshot } from './payment-plan-contract';

export type PlanWork =
  | { kind: 'charge'; number: number; attempt: number }
  | { kind: 'overdue'; number: number }
  | { kind: 'default'; pastDueAt: number }
  /** `number`: the installment the wake is for (charge or mark overdue). */
  | { kind: 'wait'; wakeAt: number | null; action: PaymentPlanWorkflowState['nextAction']; number?: number };

/**
 * A pending plan whose deposit fell due unpaid (its automatic charge failed). Plans in that state
 * now go past_due when the charge fails; one left pending by older code is settled once.
 */
export function missedDeposit(snapshot: PlanSnapshot): boolean {
  const deposit = snapshot.installments[0];
  return (
    snapshot.status === 'pending' &&
    deposit !== undefined &&
    (deposit.status === 'failed' || deposit.status === 'overdue')
  );
}

/**
 * What the schedule calls for at `now` (pure, so it is unit-tested). Charges happen only for a
 * pending plan's deposit (when a card is on file) and for an active plan; an active plan without a
 * card, and a past_due or defaulted plan, let installments fall due unpaid (overdue) instead: no
 * automatic retry. A past_due plan defaults `defaultAfterDays` after it became past_due (a pending
 * plan whose deposit charge failed is past_due too).
 */
export function nextWork(
  snapshot: PlanSnapshot,
  now: number,
  options: { settleMissedDeposit?: boolean } = {},
): PlanWork {
  if (FINAL_PLAN_STATUSES.includes(snapshot.status)) return { kind: 'wait', wakeAt: null, action: null };
  // The missed deposit is marked (again) so that the plan follows the past_due/defaulted rules.
  if (options.settleMissedDeposit && missedDeposit(snapshot)) return { kind: 'overdue', number: 1 };
  const upcoming = snapshot.installments.find((row) => row.status === 'scheduled' && !row.held);
  const candidates: {
    at: number;
    work: Exclude<PlanWork, { kind: 'wait' }>;
    action: NonNullable<PaymentPlanWorkflowState['nextAction']>;
    number?: number;
  }[] = [];

  if (upcoming) {
    const charge = { kind: 'charge' as const, number: upcoming.number, attempt: upcoming.automaticAttempts + 1 };
    const overdue = { kind: 'overdue' as const, number: upcoming.number };
    const { number } = upcoming;
    if (snapshot.status === 'pending') {
      if (snapshot.hasPaymentMethod && number === 1)
        candidates.push({ at: upcoming.dueAt, work: charge, action: 'charge_installment', number });
    } else if (snapshot.status === 'active' && snapshot.hasPaymentMethod) {
      candidates.push({ at: upcoming.dueAt, work: charge, action: 'charge_installment', number });
    } else {
      candidates.push({ at: upcoming.dueAt, work: overdue, action: 'mark_overdue', number });
    }
  }
  if (snapshot.status === 'past_due' && snapshot.pastDueAt !== null) {
    const deadline = snapshot.pastDueAt + snapshot.defaultAfterDays * DAY_MS;
    candidates.push({ at: deadline, work: { kind: 'default', pastDueAt: snapshot.pastDueAt }, action: 'default' });
  }
  candidates.sort((a, b) => a.at - b.at);
  const first = candidates[0];
  if (!first) return { kind: 'wait', wakeAt: null, action: null };
  if (first.at <= now) return first.work;
  return {
    kind: 'wait',
    wakeAt: first.at,
    action: first.action,
    ...(first.number === undefined ? {} : { number: first.number }),
  };
}
