import {
  apiStatus,
  nextAction,
  type Action,
  type DunningState,
  type SubscriptionState,
} from '../src/subscriptions/subscription-machine';
import type { ChargeReceipt } from '../src/transactions/charge-receipt';
import type { PaymentPlanWorkflowState, PlanSnapshot } from './payment-plan-contract';

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

// --- current details (the Web UI's workflow page: setCurrentDetails) ---
// What a workflow stands at, in a few lines an operator reads without a query: ids, dates, amounts and
// outcomes, never a name or an email. Like the static details they travel as a payload, encrypted by the
// codec (docs/operations.md, "Customer data in Temporal"), and change no command.

/**
 * Lines as the Web UI renders details (Markdown): one paragraph a line, and `$` escaped, since the UI
 * reads `$...$` as math.
 */
export function markdownLines(lines: string[]): string {
  return lines.map((line) => line.replace(/\$/g, '\\$')).join('\n\n');
}

/** A charge's outcome as the details show it: its receipt's line (amount, card, invoice, transaction), else its outcome. */
export function paymentLine(answer: { outcome: string; charge?: ChargeReceipt | null }, at: number): string {
  return `${answer.charge?.description ?? answer.outcome} (${isoDay(at)})`;
}

/** Why an active subscription reads past_due, or what else its status needs said. */
function subscriptionStatusLine(state: SubscriptionState): string {
  const status = apiStatus(state);
  const [dunning] = state.dunning;
  if (status === 'past_due' && dunning)
    return `past_due: invoice ${invoiceLabel(dunning.invoiceId, dunning.invoiceNumber)} unpaid, ${dunningRetryLabel(dunning)} on ${isoDay(dunning.nextRetryAt)}`;
  if (status === 'past_due' && state.uninvoicedSince !== undefined)
    return `past_due: the period from ${isoDay(state.uninvoicedSince)} could not be invoiced (${state.lastError ?? 'refused'})`;
  if (status === 'paused' && state.pausedAt !== null) return `paused since ${isoDay(state.pausedAt)}`;
  if (state.cancelAt !== null && (status === 'active' || status === 'trialing'))
    return `${status}, cancels ${isoDay(state.cancelAt)}`;
  return status;
}

/** A subscription's current details: status and why, its period, the next step (or charge), its latest invoice and last payment. */
export function subscriptionCurrentDetails(state: SubscriptionState, lastPayment: string | null): string {
  const action = nextAction(state);
  const charges =
    action !== null &&
    (action.kind === 'retry' || (action.kind === 'bill' && state.collectionMethod === 'charge_automatically'));
  const lines = [`**Status**: ${subscriptionStatusLine(state)}`];
  if (state.currentPeriodStart !== null && state.currentPeriodEnd !== null)
    lines.push(`**Period**: ${isoDay(state.currentPeriodStart)} to ${isoDay(state.currentPeriodEnd)}`);
  lines.push(
    `**${charges ? 'Next charge' : 'Next'}**: ${action ? subscriptionTimerSummary(action, state) : 'nothing scheduled'}`,
  );
  if (state.latestInvoiceId !== null) lines.push(`**Latest invoice**: ${state.latestInvoiceId}`);
  lines.push(`**Last payment**: ${lastPayment ?? 'none seen by this run'}`);
  return markdownLines(lines);
}

/** A payment plan's current details: status, installments paid, the next step, the last payment. */
export function planCurrentDetails(
  snapshot: PlanSnapshot,
  state: Pick<PaymentPlanWorkflowState, 'installmentsPaid' | 'installmentsCount'>,
  next: string | null,
  lastPayment: string | null,
): string {
  const pastDue = snapshot.pastDueAt !== null ? ` since ${isoDay(snapshot.pastDueAt)}` : '';
  return markdownLines([
    `**Status**: ${snapshot.status}${snapshot.status === 'past_due' ? pastDue : ''}`,
    `**Installments**: ${state.installmentsPaid} of ${state.installmentsCount} paid${failedInstallmentsNote(snapshot)}`,
    `**Next**: ${next ?? 'nothing scheduled'}`,
    `**Last payment**: ${lastPayment ?? 'none seen by this run'}`,
  ]);
}
