/**
 * Proration, pure and deterministic (docs/decisions.md §25): what a change of a subscription's items
 * inside a billed period is worth, to the second, in integer cents. The workflow computes it under its
 * lock with the prices' amounts read by an activity; the upcoming-invoice preview computes it with the
 * same functions, so the two cannot differ.
 */
import type { SubscriptionItemState, SubscriptionState } from './subscription-machine';

export const PRORATION_BEHAVIORS = ['create_prorations', 'always_invoice', 'none'] as const;
export type ProrationBehavior = (typeof PRORATION_BEHAVIORS)[number];

/**
 * One proration line, as the subscription keeps it until it is invoiced: a credit (`unused`, negative)
 * for the rest of the period of what a change replaced, or a charge (`remaining`, positive) for the rest
 * of the period of what replaces it. Times are workflow milliseconds (whole seconds).
 */
export interface ProrationLine {
  kind: 'unused' | 'remaining';
  priceId: string;
  quantity: number;
  taxRateIds: string[];
  /** Signed cents: the line's amount before tax, as the price's tax_behavior reads it. */
  amount: number;
  /** The part of the period the line covers: from the change to the period's end. */
  periodStart: number;
  periodEnd: number;
}

/**
 * A credit carried from an invoice of the subscription whose total went below zero (credits larger
 * than charges): the next invoice takes it as a line of its own (no tax: the tax was counted on the
 * invoice it comes from).
 */
export interface CarriedCredit {
  kind: 'carried_credit';
  invoiceId: string;
  /** Negative cents. */
  amount: number;
}

export type PendingLine = ProrationLine | CarriedCredit;

/**
 * The one rounding rule (docs/api.md, "Proration"): a line's exact amount, unit_amount x quantity x
 * (seconds left / seconds in the period), rounded to the cent half to even, on its magnitude (a
 * credit is the negated charge of the same span, so a change undone at once nets zero).
 */
export function proratedCents(fullAmount: number, secondsLeft: number, periodSeconds: number): number {
  if (periodSeconds <= 0 || secondsLeft <= 0) return 0;
  const numerator = BigInt(fullAmount) * BigInt(Math.min(secondsLeft, periodSeconds));
  const denominator = BigInt(periodSeconds);
  const quotient = numerator / denominator;
  const twice = 2n * (numerator % denominator);
  const up = twice > denominator || (twice === denominator && quotient % 2n === 1n);
  return Number(up ? quotient + 1n : quotient);
}

/**
 * The billed period a change at `atMs` falls in, or null when nothing is prorated (decisions.md §25):
 * only an active subscription (past_due included) inside a period it was invoiced for. Trialing and
 * scheduled subscriptions have billed nothing yet; a paused one's period end moves on resume; ended
 * ones take no change.
 */
export function prorationPeriod(
  state: Pick<SubscriptionState, 'status' | 'invoicesIssued' | 'currentPeriodStart' | 'currentPeriodEnd'>,
  atMs: number,
): { start: number; end: number } | null {
  const { currentPeriodStart: start, currentPeriodEnd: end } = state;
  if (state.status !== 'active' || state.invoicesIssued === 0 || start === null || end === null) return null;
  if (atMs < start || atMs >= end) return null;
  return { start, end };
}

const sameBilling = (a: SubscriptionItemState, b: SubscriptionItemState) =>
  a.priceId === b.priceId && a.quantity === b.quantity;

/**
 * The lines a change from `before` to `after` at `atMs` adds inside `period`: for each item whose price
 * or quantity changed (or that was removed) a credit for its unused time, for each item changed or added
 * a charge for the time left. A change of tax rates alone prorates nothing (it applies from the next
 * invoice). Lines with a zero amount are left out. `unitAmounts` holds every price named.
 */
export function prorationLines(
  before: SubscriptionItemState[],
  after: SubscriptionItemState[],
  unitAmounts: Record<string, number>,
  period: { start: number; end: number },
  atMs: number,
): ProrationLine[] {
  const periodSeconds = Math.round((period.end - period.start) / 1000);
  const secondsLeft = Math.round((period.end - atMs) / 1000);
  const afterById = new Map(after.map((item) => [item.id, item]));
  const beforeById = new Map(before.map((item) => [item.id, item]));
  const line = (kind: ProrationLine['kind'], item: SubscriptionItemState): ProrationLine => {
    const unitAmount = unitAmounts[item.priceId];
    if (unitAmount === undefined) throw new Error(`No unit amount for price ${item.priceId}.`);
    const magnitude = proratedCents(unitAmount * item.quantity, secondsLeft, periodSeconds);
    return {
      kind,
      priceId: item.priceId,
      quantity: item.quantity,
      taxRateIds: item.taxRateIds,
      amount: kind === 'unused' ? -magnitude : magnitude,
      periodStart: atMs,
      periodEnd: period.end,
    };
  };
  const credits = before
    .filter((item) => {
      const next = afterById.get(item.id);
      return next === undefined || !sameBilling(item, next);
    })
    .map((item) => line('unused', item));
  const charges = after
    .filter((item) => {
      const previous = beforeById.get(item.id);
      return previous === undefined || !sameBilling(item, previous);
    })
    .map((item) => line('remaining', item));
  return [...credits, ...charges].filter((entry) => entry.amount !== 0);
}

/** The credit for the unused time of every item when the subscription ends at `atMs` inside its billed period (cancel or end_date with prorate). */
export function endingCredits(
  items: SubscriptionItemState[],
  unitAmounts: Record<string, number>,
  period: { start: number; end: number },
  atMs: number,
): ProrationLine[] {
  return prorationLines(items, [], unitAmounts, period, atMs);
}
