import {
  apiStatus,
  type Action,
  type DunningState,
  type SubscriptionState,
} from '../src/subscriptions/subscription-machine';
import type { PlanSnapshot } from './payment-plan-contract';

/**
 * What the workflows write beside their timers and activities (user metadata `summary`), so that the
 * Temporal Web UI's timeline reads as the billing story: "renewal 2027-01-31", "dunning retry 2 of 3
 * on 2027-02-03", "charge invoice in_... attempt 2". Pure and cheap (a few string joins per command):
 * workflow code, run on every workflow task. Summaries are metadata: they change no command, so
 * histories recorded without them replay unchanged.
 */

/**
 * `2027-01-31 UTC`: the UTC day of a workflow time (ms), labelled with its zone, since the Web UI shows
 * the events' own times in the zone the operator picked and a bare day read as local was a day off.
 */
export function isoDay(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 10)} UTC`;
}

/** `2027-01-31T10:00:00.000Z`, or null. */
export function isoTime(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(ms).toISOString();
}

/**
 * The ISO-8601 spelling of every time (ms) given, under the same names, nulls left out: the `state`
 * queries' `times` object, read by people beside the millisecond fields the programs read.
 */
export function isoTimes(fields: Record<string, number | null | undefined>): Record<string, string> {
  const times: Record<string, string> = {};
  for (const [name, ms] of Object.entries(fields)) {
    const iso = isoTime(ms);
    if (iso !== null) times[name] = iso;
  }
  return times;
}

/**
 * BillingStatus's value for a subscription: its status, or `past_due` while an active subscription's
 * invoice is in dunning or its current period could not be invoiced.
 */
export function billingStatusOf(state: Pick<SubscriptionState, 'status' | 'dunning' | 'uninvoicedSince'>): string {
  return apiStatus(state);
}

/** `INV-000012 (9b2e...)`: an invoice as people know it, by number, with its id; the id alone before it has a number. */
export function invoiceLabel(invoiceId: string, number: string | null | undefined): string {
  return number ? `${number} (${invoiceId})` : invoiceId;
}

/** `dunning retry 2 of 3`; a round started by a resume (no charge made yet) is `charge after resume`. */
export function dunningRetryLabel(entry: Pick<DunningState, 'attempts' | 'retryDays'>): string {
  return entry.attempts === 0 ? 'charge after resume' : `dunning retry ${entry.attempts} of ${entry.retryDays.length}`;
}

/**
 * `, after charge attempt 2 FAILED`: the wait before a dunning retry says why it waits (the charge
 * activity before it is drawn failed, src/payments/charge-failure.ts; in histories recorded before
 * that, it completed and looked like a success). Nothing for a round started by a resume, which has
 * made no charge yet.
 */
export function failedChargeNote(entry: Pick<DunningState, 'attempts' | 'attemptOffset'>): string {
  return entry.attempts === 0 ? '' : `, after charge attempt ${(entry.attemptOffset ?? 0) + entry.attempts} FAILED`;
}

/** The timer before a subscription's next action: `renewal 2027-01-31`, `dunning retry 2 of 3 on 2027-02-03 (in_...)`. */
export function subscriptionTimerSummary(action: Action, state: Pick<SubscriptionState, 'dunning'>): string {
  const day = isoDay(action.at);
  switch (action.kind) {
    case 'bill':
      return `renewal ${day}`;
    case 'end_trial':
      return `trial ends ${day}`;
    case 'start':
      return `starts ${day}`;
    case 'cancel':
      return `cancels ${day}`;
    case 'expire':
      return `ends (end_date) ${day}`;
    case 'retry': {
      const entry = state.dunning.find((candidate) => candidate.invoiceId === action.invoiceId);
      return `${entry ? dunningRetryLabel(entry) : 'dunning retry'} on ${day} (${invoiceLabel(action.invoiceId, entry?.invoiceNumber)})${entry ? failedChargeNote(entry) : ''}`;
    }
  }
}

/** The timer of a payment plan's wait: `installment 3 of 6 due 2027-03-01`, `default 2027-03-15`. */
export function planTimerSummary(
  work: { wakeAt: number | null; action: 'charge_installment' | 'mark_overdue' | 'default' | null; number?: number },
  snapshot: Pick<PlanSnapshot, 'installments'>,
  refreshAt: number,
): string {
  const failed = failedInstallmentsNote(snapshot);
  if (work.wakeAt === null || work.action === null)
    return `re-read the plan ${isoDay(refreshAt)} (nothing scheduled)${failed}`;
  const day = isoDay(work.wakeAt);
  if (work.action === 'default') return `default ${day} (still past due)${failed}`;
  const installment = `installment ${work.number ?? '?'} of ${snapshot.installments.length}`;
  return (
    (work.action === 'charge_installment'
      ? `${installment} due ${day}`
      : `${installment} due ${day} (no automatic charge: overdue if unpaid)`) + failed
  );
}

/** `, after installment 2 charge FAILED`: the plan's wait after a declined charge says so (see failedChargeNote). */
function failedInstallmentsNote(snapshot: { installments: { number: number; status?: string }[] }): string {
  const failed = snapshot.installments
    .filter((installment) => installment?.status === 'failed')
    .map((installment) => installment.number);
  return failed.length === 0 ? '' : `, after installment ${failed.join(', ')} charge FAILED`;
}

/** `webhook retry 2 in 45 s` (attempt 2 of 6 follows the wait). */
export function webhookRetrySummary(nextAttempt: number, maxAttempts: number, delayMs: number): string {
  const seconds = Math.round(delayMs / 1000);
  const wait = seconds < 120 ? `${seconds} s` : `${Math.round(seconds / 60)} min`;
  return `webhook retry ${nextAttempt - 1} of ${maxAttempts - 1} in ${wait}`;
}
