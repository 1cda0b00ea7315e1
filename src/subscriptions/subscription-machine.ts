/**
 * The subscription state machine, pure and deterministic: the workflow (workflows/subscription.ts)
 * holds a SubscriptionState and moves it only through these functions, so the rules can be read and
 * unit-tested in one place. Times are UTC milliseconds of workflow time.
 */
import { DAY_MS } from '../lib/durations';
import { periodBounds, periodStart, type BillingCycle, type BillingInterval } from './billing-dates';
import type { PendingLine, ProrationBehavior } from './proration';
import type { EventOrigin } from '../lib/event-origin';

export const SUBSCRIPTION_STATUSES = ['scheduled', 'trialing', 'active', 'paused', 'canceled', 'expired'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];
/** The statuses the API shows: the workflow's, and `past_due` (decisions.md §7). */
export const API_SUBSCRIPTION_STATUSES = [...SUBSCRIPTION_STATUSES, 'past_due'] as const;
export type ApiSubscriptionStatus = (typeof API_SUBSCRIPTION_STATUSES)[number];
export const COLLECTION_METHODS = ['charge_automatically', 'send_invoice'] as const;
export type CollectionMethod = (typeof COLLECTION_METHODS)[number];
export const DUNNING_OUTCOMES = ['cancel', 'pause', 'keep_active'] as const;
export type DunningOutcome = (typeof DUNNING_OUTCOMES)[number];

/** Spec: `reason` and `initiated_by` on subscription.canceled|paused|resumed. */
export type ChangeCause =
  { reason: 'requested'; initiatedBy: 'merchant' } | { reason: 'dunning'; initiatedBy: 'system' };
export const REQUESTED: ChangeCause = { reason: 'requested', initiatedBy: 'merchant' };
export const DUNNING: ChangeCause = { reason: 'dunning', initiatedBy: 'system' };

export interface SubscriptionItemState {
  id: string;
  priceId: string;
  /** 0 on a metered item. */
  quantity: number;
  taxRateIds: string[];
  /** The price bills a meter's usage in arrears (docs/decisions.md §43); absent: licensed, billed in advance. */
  metered?: true;
  /**
   * A metered item added or moved to its price inside a billed period bills usage from then on (workflow ms):
   * what came before was the period's other item's, billed as kept usage (docs/decisions.md §43, "Changes of
   * items"). Absent, or before the period's start: the whole period.
   */
  usageFrom?: number;
}

/**
 * The usage of a metered item removed or moved to another price inside a billed period, up to the change:
 * the next invoice bills it on a line naming that part of the period (docs/decisions.md §43).
 */
export interface KeptUsage {
  priceId: string;
  taxRateIds: string[];
  /** Workflow ms: the part of the period the item billed, [start, end). */
  start: number;
  end: number;
}

/** How long a period's usage waits for late events after the period ends, when states hold none (docs/decisions.md §43). */
export const DEFAULT_USAGE_GRACE_MS = 60 * 60 * 1000;

export interface DunningState {
  invoiceId: string;
  /** The invoice's number, for people reading the workflow's timeline (absent from entries made before it was kept). */
  invoiceNumber?: string;
  periodStart: number;
  /** Charges made for the invoice so far: 1 is the renewal charge, each retry adds one. */
  attempts: number;
  /** When the renewal charge failed; retries are counted from here. */
  failedAt: number;
  /** The account's schedule when the renewal failed: days after `failedAt`. */
  retryDays: number[];
  outcome: DunningOutcome;
  nextRetryAt: number;
  /**
   * Charges made for the invoice before this round of dunning (absent: none). A round starts at the
   * renewal charge, or again when a subscription paused by dunning resumes; attempt keys count on.
   */
  attemptOffset?: number;
  /**
   * An early (threshold) invoice's dunning: the state version whose key made it (docs/decisions.md §43, "Billing
   * thresholds"), which its attempts are keyed by instead of the period's. Absent: the period's own invoice.
   */
  earlyInvoiceVersion?: number;
}

/**
 * A charge of one of the subscription's invoices that its processor holds (a bank debit: days, docs/decisions.md
 * §40): the invoice is neither paid nor retried until the processor's outcome is recorded and the workflow told.
 */
export interface HeldCharge {
  invoiceId: string;
  invoiceNumber?: string;
  periodStart: number;
  /** The attempt held (its attempt key): 1 is the renewal charge. */
  attempt: number;
  /** An early (threshold) invoice's charge: the version whose key made it, whose attempt keys it is asked under. */
  earlyInvoiceVersion?: number;
}

export interface SubscriptionState {
  id: string;
  accountId: string;
  customerId: string;
  currency: string;
  interval: BillingInterval;
  intervalCount: number;
  status: SubscriptionStatus;
  collectionMethod: CollectionMethod;
  defaultPaymentMethodId: string | null;
  items: SubscriptionItemState[];
  createdAt: number;
  startDate: number;
  startBillingDate: number | null;
  endDate: number | null;
  trialStart: number | null;
  trialEnd: number | null;
  /** billing_cycle_anchor: start of period 0 of the current cycle (moved by a resume). */
  anchor: number;
  /** Index, counted from `anchor`, of the next period to bill. */
  nextPeriodIndex: number;
  currentPeriodStart: number | null;
  currentPeriodEnd: number | null;
  cancelAt: number | null;
  cancelAtPeriodEnd: boolean;
  canceledAt: number | null;
  endedAt: number | null;
  pausedAt: number | null;
  latestInvoiceId: string | null;
  invoicesIssued: number;
  dunning: DunningState[];
  /** Charges the processor holds (absent: none); an invoice in dunning with one waits for it instead of retrying. */
  held?: HeldCharge[];
  /** Bumped by every change the database must show; the projection ignores writes older than what it has. */
  version: number;
  /** The last renewal that could not be invoiced (e.g. the customer was deleted), for operators. */
  lastError: string | null;
  /**
   * The start of the first period, of those in a row up to the current one, that could not be invoiced
   * (docs/decisions.md §7, "A period that cannot be invoiced"): the subscription reads `past_due` until
   * a later period is invoiced. Absent: the current period was invoiced (or the state predates it).
   */
  uninvoicedSince?: number;
  /**
   * Proration lines and carried credits waiting for the next invoice (docs/decisions.md §25); absent
   * when there are none (states written before proration have none).
   */
  pendingLines?: PendingLine[];
  /** Credit the unused time when end_date or cancel_at ends the subscription inside a billed period (absent: no). */
  prorateEnd?: boolean;
  /**
   * The hosted page the cancellation at period end was asked on (the customer portal), carried to the
   * subscription.canceled the period's end raises (docs/decisions.md §38); absent: the merchant's.
   */
  cancelOrigin?: EventOrigin;
  /**
   * How long a closed period's usage waits for late events before it is invoiced (docs/decisions.md §43): the
   * setting when the subscription was created; absent: DEFAULT_USAGE_GRACE_MS.
   */
  usageGraceMs?: number;
  /** Usage of metered items changed away, waiting for the next invoice (KeptUsage); absent: none. */
  keptUsage?: KeptUsage[];
  /**
   * billing_thresholds.amount_gte (integer cents): the period's unbilled usage, priced, that invoices it early
   * (docs/decisions.md §43, "Billing thresholds"); absent: none.
   */
  billingThreshold?: number;
}

export interface SubscriptionCreateSpec {
  id: string;
  accountId: string;
  customerId: string;
  currency: string;
  interval: BillingInterval;
  intervalCount: number;
  collectionMethod: CollectionMethod;
  defaultPaymentMethodId: string | null;
  items: SubscriptionItemState[];
  trialDays: number;
  startDate: number;
  endDate: number | null;
  startBillingDate: number | null;
  /** See SubscriptionState.usageGraceMs. */
  usageGraceMs?: number;
  /** See SubscriptionState.billingThreshold. */
  billingThreshold?: number;
}

/** `metered`: the item's (new) price is metered, its quantity 0 (docs/decisions.md §43). */
export type ItemChange =
  | { kind: 'add'; id: string; priceId: string; quantity: number; taxRateIds: string[]; metered?: boolean }
  | { kind: 'update'; id: string; priceId?: string; quantity?: number; taxRateIds?: string[]; metered?: boolean }
  | { kind: 'delete'; id: string };

export interface SubscriptionChanges {
  /** In request order; `param` is the request field each came from (items.N). */
  items?: { param: string; change: ItemChange }[];
  collectionMethod?: CollectionMethod;
  defaultPaymentMethodId?: string | null;
  cancelAt?: number | null;
  cancelAtPeriodEnd?: boolean;
  endDate?: number | null;
  /**
   * How a change of items inside a billed period is prorated (docs/decisions.md §25); absent or `none`:
   * from the next invoice, as before. The API sends the account's default when the request names none.
   */
  prorationBehavior?: ProrationBehavior;
  /** `prorate` with end_date or cancel_at: the ending credits the unused time of the period (decisions.md §25). */
  prorateEnd?: boolean;
  /** The hosted page the change was asked on (docs/decisions.md §38): said by its event, never a change itself. */
  origin?: EventOrigin;
  /** billing_thresholds.amount_gte; null removes it. */
  billingThreshold?: number | null;
  /**
   * A coupon (`coup_` id) to redeem on the subscription: not a change of the state (the discount lives in
   * the database), redeemed by the workflow under its lock after the other fields (docs/decisions.md §37).
   */
  coupon?: string;
}

/** A move the state forbids (API 409) or input only the state can judge (API 400). */
export class SubscriptionRuleError extends Error {
  constructor(
    readonly kind: 'conflict' | 'invalid',
    readonly code: string,
    message: string,
    readonly param?: string,
  ) {
    super(message);
  }
}

const conflict = (code: string, message: string) => new SubscriptionRuleError('conflict', code, message);

export function isEnded(state: SubscriptionState): boolean {
  return state.status === 'canceled' || state.status === 'expired';
}

/**
 * The status the API shows (the row's): `past_due` while an active subscription has an invoice in
 * dunning (its renewal charge failed and is being retried) or its current period could not be invoiced,
 * so a merchant provisioning on `status` sees it; the workflow's status otherwise (decisions.md §7).
 */
export function apiStatus(
  state: Pick<SubscriptionState, 'status' | 'dunning' | 'uninvoicedSince'>,
): ApiSubscriptionStatus {
  const owing = () => state.dunning.length > 0 || state.uninvoicedSince !== undefined;
  return state.status === 'active' && owing() ? 'past_due' : state.status;
}

/** Webhook payloads know only active, canceled and paused (spec; decisions.md §7): past_due is sent as active. */
export function webhookStatus(status: ApiSubscriptionStatus): 'active' | 'canceled' | 'paused' {
  if (status === 'paused') return 'paused';
  if (status === 'canceled' || status === 'expired') return 'canceled';
  return 'active';
}

export function billingCycle(state: Pick<SubscriptionState, 'anchor' | 'interval' | 'intervalCount'>): BillingCycle {
  return { anchorMs: state.anchor, interval: state.interval, intervalCount: state.intervalCount };
}

/**
 * decisions.md §7: `scheduled` when start_date is in the future, else `trialing` with trial days, else
 * `active`. A start_date in the past starts the subscription now: nothing is billed retroactively.
 * Billing starts when the trial ends, or at start_billing_date when that is later; that first
 * billing date is the billing_cycle_anchor.
 */
export function initialState(spec: SubscriptionCreateSpec, nowMs: number): SubscriptionState {
  // Billing dates are whole seconds (the API's unit); `created` keeps the instant, to order lists.
  const start = Math.max(spec.startDate, Math.floor(nowMs / 1000) * 1000);
  const trialEnd = spec.trialDays > 0 ? start + spec.trialDays * DAY_MS : null;
  const anchor = Math.max(start, trialEnd ?? start, spec.startBillingDate ?? start);
  const status: SubscriptionStatus = spec.startDate > nowMs ? 'scheduled' : trialEnd !== null ? 'trialing' : 'active';
  return {
    id: spec.id,
    accountId: spec.accountId,
    customerId: spec.customerId,
    currency: spec.currency,
    interval: spec.interval,
    intervalCount: spec.intervalCount,
    status,
    collectionMethod: spec.collectionMethod,
    defaultPaymentMethodId: spec.defaultPaymentMethodId,
    items: spec.items,
    createdAt: nowMs,
    startDate: spec.startDate,
    startBillingDate: spec.startBillingDate,
    endDate: spec.endDate,
    trialStart: trialEnd !== null ? start : null,
    trialEnd,
    anchor,
    nextPeriodIndex: 0,
    // Before the first invoice the current period is the trial, or the unbilled stretch up to the anchor.
    currentPeriodStart: status === 'scheduled' || anchor === start ? null : start,
    currentPeriodEnd: status === 'scheduled' || anchor === start ? null : anchor,
    cancelAt: null,
    cancelAtPeriodEnd: false,
    canceledAt: null,
    endedAt: null,
    pausedAt: null,
    latestInvoiceId: null,
    invoicesIssued: 0,
    dunning: [],
    version: 0,
    lastError: null,
    ...(spec.usageGraceMs !== undefined ? { usageGraceMs: spec.usageGraceMs } : {}),
    ...(spec.billingThreshold !== undefined ? { billingThreshold: spec.billingThreshold } : {}),
  };
}

/** When the next period is billed, or null when nothing will be billed until something changes. */
export function nextBillingAt(state: SubscriptionState): number | null {
  if (isEnded(state) || state.status === 'paused') return null;
  return periodStart(billingCycle(state), state.nextPeriodIndex);
}

/** Whether any item bills usage in arrears. */
export function hasMeteredItems(state: Pick<SubscriptionState, 'items'>): boolean {
  return state.items.some((item) => item.metered === true);
}

/**
 * The usage period the next invoice closes: the period running now, [currentPeriodStart, its end), once a
 * period has been billed (a trial's or the unbilled stretch's usage is not billed: there was no period to bill),
 * and only with metered items. Null when the next invoice bills no usage.
 */
export function closingUsagePeriod(
  state: Pick<SubscriptionState, 'items' | 'invoicesIssued' | 'currentPeriodStart'>,
  periodStartMs: number,
): { start: number; end: number } | null {
  if (!hasMeteredItems(state) || state.invoicesIssued === 0 || state.currentPeriodStart === null) return null;
  if (state.currentPeriodStart >= periodStartMs) return null;
  return { start: state.currentPeriodStart, end: periodStartMs };
}

/**
 * The wait after a period's end before its invoice is made, when that invoice bills usage: late events
 * (sent after the period ended, timestamped inside it) are counted in it (docs/decisions.md §43).
 */
function usageGrace(state: SubscriptionState): number {
  const at = nextBillingAt(state);
  if (at === null || closingUsagePeriod(state, at) === null) return 0;
  return state.usageGraceMs ?? DEFAULT_USAGE_GRACE_MS;
}

export type Action =
  | { kind: 'expire'; at: number }
  | { kind: 'cancel'; at: number }
  | { kind: 'start'; at: number }
  | { kind: 'end_trial'; at: number }
  | { kind: 'retry'; at: number; invoiceId: string }
  | { kind: 'bill'; at: number; index: number };

/** Order among actions due at the same instant: an ending comes before any billing at that instant. */
const PRIORITY: Record<Action['kind'], number> = { expire: 0, cancel: 1, start: 2, end_trial: 3, retry: 4, bill: 5 };

/** The next thing the workflow must do and when, or null when only an outside change can move the subscription. */
export function nextAction(state: SubscriptionState): Action | null {
  if (isEnded(state)) return null;
  const candidates: Action[] = [];
  if (state.endDate !== null) candidates.push({ kind: 'expire', at: state.endDate });
  if (state.cancelAt !== null) candidates.push({ kind: 'cancel', at: state.cancelAt });
  if (state.status === 'scheduled') candidates.push({ kind: 'start', at: state.startDate });
  if (state.status === 'trialing' && state.trialEnd !== null)
    candidates.push({ kind: 'end_trial', at: state.trialEnd });
  if (state.status === 'active') {
    for (const dunning of state.dunning)
      if (!isHeld(state, dunning.invoiceId))
        candidates.push({ kind: 'retry', at: dunning.nextRetryAt, invoiceId: dunning.invoiceId });
    candidates.push({ kind: 'bill', at: nextBillingAt(state)! + usageGrace(state), index: state.nextPeriodIndex });
  }
  candidates.sort((a, b) => a.at - b.at || PRIORITY[a.kind] - PRIORITY[b.kind]);
  return candidates[0] ?? null;
}

// --- transitions: each returns a new state; the caller persists it (version + 1) ---

function next(state: SubscriptionState, changes: Partial<SubscriptionState>): SubscriptionState {
  return { ...state, ...changes, version: state.version + 1 };
}

export function start(state: SubscriptionState, nowMs: number): SubscriptionState {
  const trialing = state.trialEnd !== null && state.trialEnd > nowMs;
  const unbilled = state.anchor > state.startDate;
  return next(state, {
    status: trialing ? 'trialing' : 'active',
    currentPeriodStart: unbilled ? state.startDate : null,
    currentPeriodEnd: unbilled ? state.anchor : null,
  });
}

export function endTrial(state: SubscriptionState): SubscriptionState {
  return next(state, { status: 'active' });
}

/** Period `index` was invoiced (or could not be: `invoiceId` null); the subscription moves into it. */
export function billed(
  state: SubscriptionState,
  index: number,
  invoiceId: string | null,
  error: string | null = null,
): SubscriptionState {
  const { start: periodStartMs, end } = periodBounds(billingCycle(state), index);
  return next(state, {
    nextPeriodIndex: index + 1,
    currentPeriodStart: periodStartMs,
    currentPeriodEnd: end,
    cancelAt: state.cancelAtPeriodEnd ? end : state.cancelAt,
    latestInvoiceId: invoiceId ?? state.latestInvoiceId,
    invoicesIssued: state.invoicesIssued + (invoiceId ? 1 : 0),
    lastError: error,
    // The pending lines went on the period's invoice; kept when it could not be made.
    pendingLines: invoiceId ? undefined : state.pendingLines,
    keptUsage: invoiceId ? undefined : state.keptUsage,
    uninvoicedSince: invoiceId ? undefined : state.uninvoicedSince,
  });
}

/**
 * Period `index` could not be invoiced (`reason`: why): the subscription moves into it as `billed`
 * does, and reads past_due from it until a later period is invoiced (docs/decisions.md §7).
 */
export function periodNotInvoiced(state: SubscriptionState, index: number, reason: string): SubscriptionState {
  const moved = billed(state, index, null, reason);
  return { ...moved, uninvoicedSince: state.uninvoicedSince ?? periodBounds(billingCycle(state), index).start };
}

/**
 * When the subscription bills its next period, or why it will not (for the upcoming invoice's 409 and
 * the checks that judge that invoice): ended or paused, or ending before.
 */
export function nextPeriodBilling(state: SubscriptionState): { at: number } | { none: string } {
  const at = nextBillingAt(state);
  if (at === null) return { none: `it is ${state.status}` };
  if (state.endDate !== null && state.endDate <= at) return { none: 'it expires before it bills again' };
  if (state.cancelAt !== null && state.cancelAt <= at) return { none: 'it is canceled before it bills again' };
  return { at };
}

/** The state as a new version with nothing else changed: a change only the row shows (the creation's write, the end of dunning). */
export function newVersion(state: SubscriptionState): SubscriptionState {
  return next(state, {});
}

/**
 * What billing period `index` invoices (src/subscriptions/period-billing.ts): the subscription's
 * customer, currency, collection method and items, the period's bounds (its start, with the
 * subscription, names the period) and the invoice's billing_reason (the first invoice is the creation's).
 */
export interface PeriodToBill {
  accountId: string;
  subscriptionId: string;
  periodStart: number;
  periodEnd: number;
  customerId: string;
  currency: string;
  collectionMethod: CollectionMethod;
  billingReason: 'subscription_create' | 'subscription_cycle';
  items: SubscriptionItemState[];
  /** Proration lines and carried credits the period's invoice takes after its items (absent: none). */
  pendingLines?: PendingLine[];
  /** The usage period the invoice bills in arrears for the metered items (closingUsagePeriod; absent: none). */
  usagePeriod?: { start: number; end: number };
  /** The usage of metered items changed away since the last invoice (absent: none). */
  keptUsage?: KeptUsage[];
}

export function periodToBill(state: SubscriptionState, index: number): PeriodToBill {
  const { start: periodStartMs, end } = periodBounds(billingCycle(state), index);
  return {
    accountId: state.accountId,
    subscriptionId: state.id,
    periodStart: periodStartMs,
    periodEnd: end,
    customerId: state.customerId,
    currency: state.currency,
    collectionMethod: state.collectionMethod,
    billingReason: state.invoicesIssued === 0 ? 'subscription_create' : 'subscription_cycle',
    items: state.items,
    ...(state.pendingLines?.length ? { pendingLines: state.pendingLines } : {}),
    ...optional('usagePeriod', closingUsagePeriod(state, periodStartMs)),
    ...(state.keptUsage?.length ? { keptUsage: state.keptUsage } : {}),
  };
}

/**
 * A change of items at `nowMs` inside a billed period keeps the usage of the metered items it removes or
 * moves to another price, up to the change, for the next invoice, and bills the metered items it adds or
 * moves from the change on (docs/decisions.md §43, "Changes of items"): the events before the change are
 * billed once, at the price the item had then, as Stripe's do. Null when the change touches no metered item
 * of a billed period (nothing to keep).
 */
export function keepChangedUsage(
  current: SubscriptionState,
  changed: SubscriptionState,
  nowMs: number,
): SubscriptionState | null {
  const period = closingUsagePeriod(current, nowMs) ?? closingUsagePeriod(changed, nowMs);
  if (!period) return null;
  const before = new Map(current.items.map((item) => [item.id, item]));
  const after = new Map(changed.items.map((item) => [item.id, item]));
  const kept: KeptUsage[] = [];
  for (const item of current.items) {
    if (!item.metered || after.get(item.id)?.priceId === item.priceId) continue;
    const start = Math.max(period.start, item.usageFrom ?? period.start);
    if (start < nowMs) kept.push({ priceId: item.priceId, taxRateIds: item.taxRateIds, start, end: nowMs });
  }
  let started = false;
  const items = changed.items.map((item) => {
    if (!item.metered || before.get(item.id)?.priceId === item.priceId) return item;
    started = true;
    return { ...item, usageFrom: nowMs };
  });
  if (kept.length === 0 && !started) return null;
  return {
    ...changed,
    items,
    ...(kept.length > 0 ? { keptUsage: [...(changed.keptUsage ?? []), ...kept] } : {}),
  };
}

const optional = <K extends string, V>(key: K, value: V | null) =>
  (value === null ? {} : { [key]: value }) as Partial<Record<K, V>>;

/**
 * Period `index` invoiced but not yet billed: the row shows the period and its invoice, and the
 * period is still the next to bill, so the workflow's bill(index) finds the invoice and records it
 * billed (the API's creation, decisions.md §14).
 */
export function periodInvoiced(state: SubscriptionState, index: number, invoiceId: string): SubscriptionState {
  const { start: periodStartMs, end } = periodBounds(billingCycle(state), index);
  return next(state, { latestInvoiceId: invoiceId, currentPeriodStart: periodStartMs, currentPeriodEnd: end });
}

/** Whether a period's finalized invoice is charged now (its attempt 1): open, and charged automatically. */
export function chargedOnFinalize(state: Pick<SubscriptionState, 'collectionMethod'>, status: string): boolean {
  return status === 'open' && state.collectionMethod === 'charge_automatically';
}

/** Attempt 1 of a period's invoice failed: when, and the account's dunning schedule then. */
export interface FirstAttemptFailure {
  failedAt: number;
  retryDays: number[];
  outcome: DunningOutcome;
}

/**
 * Period `index` billed with its invoice (`billed`); when its attempt 1 failed, dunning starts on
 * the account's schedule (the caller applies the outcome at once when no retry is left).
 */
export function periodBilled(
  state: SubscriptionState,
  index: number,
  invoice: { id: string; number?: string | null },
  failure: FirstAttemptFailure | null,
): SubscriptionState {
  const { start: periodStartMs } = periodBounds(billingCycle(state), index);
  const invoiced = billed(state, index, invoice.id);
  if (!failure) return invoiced;
  return startDunning(invoiced, {
    invoiceId: invoice.id,
    ...(invoice.number ? { invoiceNumber: invoice.number } : {}),
    periodStart: periodStartMs,
    failedAt: failure.failedAt,
    retryDays: failure.retryDays,
    outcome: failure.outcome,
  });
}

/** A renewal charge failed: start dunning on the account's schedule. Null retry days means none: apply the outcome now. */
export function startDunning(
  state: SubscriptionState,
  failure: {
    invoiceId: string;
    invoiceNumber?: string;
    periodStart: number;
    failedAt: number;
    retryDays: number[];
    outcome: DunningOutcome;
    attemptOffset?: number;
    earlyInvoiceVersion?: number;
  },
): SubscriptionState {
  const dunning: DunningState = {
    ...failure,
    attempts: 1,
    nextRetryAt: failure.failedAt + (failure.retryDays[0] ?? 0) * DAY_MS,
  };
  return { ...state, dunning: [...state.dunning.filter((entry) => entry.invoiceId !== failure.invoiceId), dunning] };
}

/** Whether the invoice's dunning has no retry left (then its outcome applies). */
export function dunningExhausted(state: SubscriptionState, invoiceId: string): boolean {
  const entry = state.dunning.find((candidate) => candidate.invoiceId === invoiceId);
  return entry !== undefined && entry.attempts > entry.retryDays.length;
}

export function retryFailed(state: SubscriptionState, invoiceId: string): SubscriptionState {
  return {
    ...state,
    dunning: state.dunning.map((entry) => {
      if (entry.invoiceId !== invoiceId) return entry;
      const attempts = entry.attempts + 1;
      const days = entry.retryDays[attempts - 1];
      return {
        ...entry,
        attempts,
        nextRetryAt: days === undefined ? entry.nextRetryAt : entry.failedAt + days * DAY_MS,
      };
    }),
  };
}

/** The number of the next charge of the invoice, across rounds of dunning (its attempt key). */
export function nextAttempt(entry: DunningState): number {
  return (entry.attemptOffset ?? 0) + entry.attempts + 1;
}

/** Whether the processor holds a charge of the invoice (no retry beside it). */
export function isHeld(state: Pick<SubscriptionState, 'held'>, invoiceId: string): boolean {
  return state.held?.some((charge) => charge.invoiceId === invoiceId) ?? false;
}

/** The processor answered a charge `pending`: the invoice waits for its outcome. */
export function chargeHeld(state: SubscriptionState, charge: HeldCharge): SubscriptionState {
  return { ...state, held: [...(state.held ?? []).filter((held) => held.invoiceId !== charge.invoiceId), charge] };
}

/** The processor's outcome of the invoice's held charge is known: the invoice no longer waits for it. */
export function heldChargeSettled(state: SubscriptionState, invoiceId: string): SubscriptionState {
  const held = (state.held ?? []).filter((charge) => charge.invoiceId !== invoiceId);
  const { held: _, ...rest } = state;
  return held.length > 0 ? { ...rest, held } : rest;
}

/** The invoice no longer needs collecting (paid, voided): its dunning ends. */
export function dunningResolved(state: SubscriptionState, invoiceId: string): SubscriptionState {
  return { ...state, dunning: state.dunning.filter((entry) => entry.invoiceId !== invoiceId) };
}

export function assertCanPause(state: SubscriptionState): void {
  if (state.status !== 'active') {
    throw conflict(
      'subscription_not_active',
      `Subscription ${state.id} is ${state.status}; only an active subscription can be paused.`,
    );
  }
}

export function pause(state: SubscriptionState, nowMs: number): SubscriptionState {
  assertCanPause(state);
  return next(state, { status: 'paused', pausedAt: nowMs });
}

export function assertCanResume(state: SubscriptionState): void {
  if (state.status !== 'paused') {
    throw conflict(
      'subscription_not_paused',
      `Subscription ${state.id} is ${state.status}; only a paused subscription can be resumed.`,
    );
  }
}

/**
 * Resume shifts the schedule by the paused time (decisions.md §7): the billing date that was next
 * when the subscription paused, the current period's end and pending dunning retries all move by
 * it. The moved billing date becomes the new billing_cycle_anchor. An invoice whose exhausted
 * dunning paused the subscription is still open: it is charged again at once (a new round, whose
 * failure starts the account's dunning schedule again).
 */
export function resume(state: SubscriptionState, nowMs: number): SubscriptionState {
  assertCanResume(state);
  const pausedMs = Math.max(0, nowMs - (state.pausedAt ?? nowMs));
  const shifted = (entry: DunningState): DunningState =>
    entry.attempts > entry.retryDays.length
      ? {
          ...entry,
          attemptOffset: (entry.attemptOffset ?? 0) + entry.attempts,
          attempts: 0,
          failedAt: nowMs,
          nextRetryAt: nowMs,
        }
      : { ...entry, failedAt: entry.failedAt + pausedMs, nextRetryAt: entry.nextRetryAt + pausedMs };
  const anchor = periodStart(billingCycle(state), state.nextPeriodIndex) + pausedMs;
  const currentPeriodEnd = state.currentPeriodEnd === null ? null : state.currentPeriodEnd + pausedMs;
  return next(state, {
    status: 'active',
    pausedAt: null,
    anchor,
    nextPeriodIndex: 0,
    currentPeriodEnd,
    cancelAt: state.cancelAtPeriodEnd ? currentPeriodEnd : state.cancelAt,
    dunning: state.dunning.map(shifted),
  });
}

export function assertNotEnded(state: SubscriptionState): void {
  if (isEnded(state)) throw conflict(`subscription_${state.status}`, `Subscription ${state.id} is ${state.status}.`);
}

/** Ends the subscription now: canceled (by a request, a cancel_at or dunning) or expired (end_date). */
export function end(state: SubscriptionState, nowMs: number, status: 'canceled' | 'expired'): SubscriptionState {
  return next(state, {
    status,
    canceledAt: status === 'canceled' ? (state.canceledAt ?? nowMs) : state.canceledAt,
    endedAt: nowMs,
    cancelAt: null,
    pausedAt: null,
    dunning: [],
  });
}

/**
 * The one rule for "cancel at period end" (DELETE ?at_period_end=true and PATCH
 * cancel_at_period_end: true alike): only while a billing period runs. A paused subscription bills
 * nothing and its period's end moves on resume, a scheduled one has no period yet: both are refused
 * (409 no_current_period) rather than canceled now, which the caller did not ask for.
 */
export function assertCanCancelAtPeriodEnd(state: SubscriptionState, nowMs: number): void {
  assertNotEnded(state);
  if (state.status === 'paused' || state.currentPeriodEnd === null || state.currentPeriodEnd <= nowMs) {
    throw conflict(
      'no_current_period',
      `Subscription ${state.id} is ${state.status} with no running billing period to cancel at the end of; cancel it now instead.`,
    );
  }
}

/** DELETE: at once, or at the end of the running period (see assertCanCancelAtPeriodEnd). canceled_at records the request. */
export function cancel(
  state: SubscriptionState,
  nowMs: number,
  atPeriodEnd: boolean,
  origin?: EventOrigin,
): SubscriptionState {
  assertNotEnded(state);
  if (atPeriodEnd) {
    assertCanCancelAtPeriodEnd(state, nowMs);
    return next(state, {
      cancelAtPeriodEnd: true,
      cancelAt: state.currentPeriodEnd,
      canceledAt: nowMs,
      cancelOrigin: origin,
    });
  }
  return end({ ...state, canceledAt: nowMs }, nowMs, 'canceled');
}

function applyItemChanges(
  items: SubscriptionItemState[],
  changes: { param: string; change: ItemChange }[],
): SubscriptionItemState[] {
  let result = [...items];
  for (const { param, change } of changes) {
    const index = result.findIndex((item) => item.id === change.id);
    if (change.kind === 'add') {
      result.push({
        id: change.id,
        priceId: change.priceId,
        quantity: change.quantity,
        taxRateIds: change.taxRateIds,
        ...(change.metered ? { metered: true as const } : {}),
      });
      continue;
    }
    if (index < 0)
      throw new SubscriptionRuleError(
        'invalid',
        'resource_missing',
        `No such subscription item: '${change.id}'`,
        `${param}.id`,
      );
    if (change.kind === 'delete') {
      result = result.filter((item) => item.id !== change.id);
    } else {
      const { metered: wasMetered, ...item } = result[index]!;
      const metered = change.metered ?? wasMetered === true;
      result[index] = {
        ...item,
        priceId: change.priceId ?? item.priceId,
        quantity: metered ? 0 : (change.quantity ?? item.quantity),
        taxRateIds: change.taxRateIds ?? item.taxRateIds,
        ...(metered ? { metered: true as const } : {}),
      };
    }
  }
  if (result.length === 0)
    throw new SubscriptionRuleError(
      'invalid',
      'parameter_invalid',
      'A subscription must keep at least one item.',
      'items',
    );
  const seen = new Set<string>();
  for (const item of result) {
    if (seen.has(item.priceId)) {
      throw new SubscriptionRuleError(
        'invalid',
        'parameter_invalid',
        `Price ${item.priceId} would appear on two items of the subscription.`,
        'items',
      );
    }
    seen.add(item.priceId);
  }
  return result;
}

/**
 * PATCH: item changes take effect from the next invoice; so do collection method and payment method.
 * Their proration (prorationBehavior) is the workflow's to add, with the prices' amounts
 * (src/subscriptions/proration.ts). Setting cancel_at clears cancel_at_period_end and the other way round.
 */
export function update(state: SubscriptionState, changes: SubscriptionChanges, nowMs: number): SubscriptionState {
  assertNotEnded(state);
  const patch: Partial<SubscriptionState> = {};
  if (changes.items) patch.items = applyItemChanges(state.items, changes.items);
  if (changes.collectionMethod !== undefined) patch.collectionMethod = changes.collectionMethod;
  if (changes.defaultPaymentMethodId !== undefined) patch.defaultPaymentMethodId = changes.defaultPaymentMethodId;
  if (changes.endDate !== undefined) patch.endDate = changes.endDate;
  if (changes.prorateEnd !== undefined) patch.prorateEnd = changes.prorateEnd ? true : undefined;
  if (changes.billingThreshold !== undefined) patch.billingThreshold = changes.billingThreshold ?? undefined;
  // A cancellation the merchant sets or clears is the merchant's, whoever asked for the one it replaces.
  if (changes.cancelAt !== undefined || changes.cancelAtPeriodEnd !== undefined) patch.cancelOrigin = undefined;
  if (changes.cancelAt !== undefined) {
    patch.cancelAt = changes.cancelAt;
    patch.cancelAtPeriodEnd = false;
    patch.canceledAt = changes.cancelAt === null ? null : nowMs;
  }
  if (changes.cancelAtPeriodEnd !== undefined) {
    if (changes.cancelAtPeriodEnd) {
      assertCanCancelAtPeriodEnd(state, nowMs);
      patch.cancelAtPeriodEnd = true;
      patch.cancelAt = state.currentPeriodEnd;
      patch.canceledAt = nowMs;
    } else if (state.cancelAtPeriodEnd) {
      patch.cancelAtPeriodEnd = false;
      patch.cancelAt = null;
      patch.canceledAt = null;
    }
  }
  return next(state, patch);
}

// --- reminders (docs/decisions.md §31) ---

/** The reminders a subscription's workflow sends, days before (docs/decisions.md §31). */
export type ReminderKind = 'renewal_reminder' | 'trial_ending';

/** The moment the next reminder is about, and the start of the stretch it ends (a period, a trial). */
export interface ReminderTarget {
  kind: ReminderKind;
  /** When the subscription renews, or its trial ends (Unix ms). */
  dueAt: number;
  /** The start of the period, or of the trial, that ends then. */
  since: number;
}

/**
 * What the subscription's next reminder is about (pure: the workflow asks it on its state): the end of
 * a trial, or the renewal of an active subscription that billed a period already. None when the
 * subscription ends first (canceled at period end, an end date, cancel_at) or is paused.
 */
export function reminderTarget(state: SubscriptionState): ReminderTarget | null {
  if (isEnded(state)) return null;
  const endsBy = (at: number) =>
    (state.cancelAt !== null && state.cancelAt <= at) || (state.endDate !== null && state.endDate <= at);
  if (state.status === 'trialing' && state.trialEnd !== null)
    return endsBy(state.trialEnd)
      ? null
      : { kind: 'trial_ending', dueAt: state.trialEnd, since: state.trialStart ?? state.startDate };
  if (state.status !== 'active' || state.nextPeriodIndex === 0) return null;
  const at = nextBillingAt(state);
  if (at === null || endsBy(at)) return null;
  return { kind: 'renewal_reminder', dueAt: at, since: state.currentPeriodStart ?? at };
}

/**
 * When the reminder goes: `days` before the moment, if that falls after the start of the stretch that
 * ends then (a weekly plan with a 7-day reminder, or a 3-day trial with a 7-day one, gets none: the
 * customer has just seen it begin). Null: none.
 */
export function reminderAt(target: ReminderTarget, days: number): number | null {
  const at = target.dueAt - days * DAY_MS;
  return at > target.since ? at : null;
}
