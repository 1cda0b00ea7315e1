import type { Db } from '../db/prisma';
import type { AnyTx, Queryable } from '../db/sql';
import { sqlTransaction } from '../db/sql-transaction';
import { activeTaxRateIds, readPrices } from '../catalog';
import { recordEvent } from '../lib/events';
import { DAY_SECONDS } from '../lib/durations';
import { newUuid } from '../lib/ids';
import {
  collectInvoice,
  createChargedInvoiceForBilling,
  openFirstAttempt,
  type InvoiceWithLines,
  type PayInvoiceOptions,
} from '../invoices';
import {
  createInvoiceForBilling,
  createKeyedInvoice,
  findOrCreateInvoiceForBilling,
  finalizeInTx,
  finalizeInvoice,
  type BillingInvoiceInput,
  type BillingLine,
} from '../invoices';
import type { PendingLine } from './proration';
import { capWaitingCredits } from './unused-time-cap';
import { closeSubscriptionUsage } from './subscription.records';
import { holdCustomerUsage, meterTotal } from '../usage';
import { billedUsageBeforePeriod, findInvoiceIdByKey, previewInvoiceForBilling } from '../invoices';
import { periodDiscount } from '../coupons';
import { findInvoice, findRefundByKey, lockInvoice, toInvoiceObject, updateLockedInvoice } from '../invoices';
import type { Gateways, OpenedEntry } from '../payments';
import { notFound } from '../http/errors';
import { attemptReceipt, type ChargeReceipt } from '../transactions';
import type { ChargeOrigin } from '../transactions';
import { getDunningSettings } from './dunning-settings.service';
import {
  insertRenewal,
  lockRenewalAttemptCount,
  recordRenewalAttempt,
  renewalInvoiceId,
  setRenewalStatus,
} from './renewal.records';
import { refundInvoice } from '../invoices';
import { invoiceCreditable } from '../invoices';
import {
  chargedOnFinalize,
  periodInvoiced,
  periodToBill,
  type CollectionMethod,
  type DunningOutcome,
  type KeptUsage,
  type PeriodToBill,
  type SubscriptionItemState,
  type SubscriptionState,
} from './subscription-machine';

/**
 * Billing a subscription's period, the one place it is done: its invoice made (once per period, the
 * period's key), finalized, then charged (attempt 1, once per attempt key), with the bookkeeping of
 * table subscription_renewals, whatever the activity retries and worker crashes. The workflow's bill
 * step runs the three steps as one activity each (a retry repeats only its step; recorded histories
 * keep their commands); the API's creation bills the first period with billPeriod, the same steps in
 * its transaction. What the period is and what the state becomes are the state machine's
 * (periodToBill, periodInvoiced, periodBilled).
 */
/** send_invoice renewals are due this many days after their period starts. */
export const SEND_INVOICE_DUE_DAYS = 30;

export interface RenewalPeriod {
  accountId: string;
  subscriptionId: string;
  /** Workflow time (ms) of the period's start: with the subscription, the renewal's identity. */
  periodStart: number;
}

/** The invoice step's input: the machine's periodToBill. */
export type RenewalInvoiceInput = PeriodToBill;

export interface RenewalChargeInput extends RenewalPeriod {
  invoiceId: string;
  /** 1 for the renewal charge, then 2, 3... for dunning retries. */
  attempt: number;
  paymentMethodId: string | null;
  /**
   * What a later attempt is, as the workflow's dunning knows it (recorded with the transaction); attempt 1 is
   * the period's own charge. Absent from inputs recorded before it was added: such an attempt records none.
   */
  retry?: ChargeOrigin & { origin: 'dunning_retry' | 'charge_after_resume' };
  /**
   * A retry of an early (threshold) invoice: the version whose key made it, which keys its attempts (attempt 1 was
   * its own, `immediateInvoiceKey`'s); it has no renewal row. Absent: the period's invoice.
   */
  earlyInvoiceVersion?: number;
}

/**
 * `charge`: what this attempt charged (amount, card brand and last4, transaction), for the Web UI;
 * null when no charge was made (no usable payment method, invoice paid or voided otherwise).
 * Absent from results recorded before it was added: workflow code must not rely on it.
 */
export type RenewalChargeResult = (
  | { outcome: 'paid' | 'void' }
  | { outcome: 'failed'; failureCode: string | null; retryDays: number[]; dunningOutcome: DunningOutcome }
  /** The processor holds the charge (a bank debit): the workflow waits for its outcome (docs/decisions.md §40). */
  | { outcome: 'pending' }
) & { charge?: ChargeReceipt | null };

const seconds = (ms: number) => Math.floor(ms / 1000);

/** Idempotency key of a period's invoice: a retried or replayed renewal finds the invoice it made. */
export function renewalInvoiceKey(subscriptionId: string, periodStartMs: number): string {
  return `subscription:${subscriptionId}:period:${seconds(periodStartMs)}`;
}

/** The caller's key of one charge attempt; the invoice module derives the gateway key from it and the invoice id. */
export function renewalAttemptKey(subscriptionId: string, periodStartMs: number, attempt: number): string {
  return `${renewalInvoiceKey(subscriptionId, periodStartMs)}:attempt:${attempt}`;
}

const periodKey = (period: RenewalPeriod) => ({
  subscriptionId: period.subscriptionId,
  periodStart: new Date(period.periodStart),
});

/** The tax rates of `taxRateIds` still active: a rate deactivated since the item was set no longer applies to new invoices. */
async function activeRates(db: Queryable, accountId: string, taxRateIds: string[][]): Promise<Set<string>> {
  const ids = [...new Set(taxRateIds.flat())];
  return new Set(ids.length === 0 ? [] : await activeTaxRateIds(db, accountId, ids));
}

/**
 * Pending proration lines and carried credits as invoice lines (docs/decisions.md §25): a proration
 * bills its price's share of the period with the item's tax rates; a carried credit is an amount line
 * without tax (its tax was counted on the invoice it comes from). Credits are carried only by runs that
 * billed below zero before the customer balance took such credit, or when the balance cannot take it.
 */
function pendingBillingLines(lines: PendingLine[], active: Set<string>): BillingLine[] {
  return lines.map((line): BillingLine =>
    line.kind === 'carried_credit'
      ? {
          description: `Credit carried from invoice ${line.invoiceId}`,
          unitAmount: line.amount,
          quantity: 1,
          taxRateIds: [],
        }
      : {
          priceId: line.priceId,
          quantity: line.quantity,
          taxRateIds: line.taxRateIds.filter((id) => active.has(id)),
          period: { start: seconds(line.periodStart), end: seconds(line.periodEnd) },
          proration: { kind: line.kind, amount: line.amount },
        },
  );
}

const taxRatesOf = (lines: PendingLine[]) =>
  lines.map((line) => (line.kind === 'carried_credit' ? [] : line.taxRateIds));

const licensedItems = (items: PeriodToBill['items']) => items.filter((item) => !item.metered);

const asPeriod = (start: number, end: number) => ({ start: seconds(start), end: seconds(end) });

/**
 * The usage lines of a period's invoice (docs/decisions.md §43): for each metered item, the usage of the period
 * that closed (input.usagePeriod), priced through its price's terms by the invoice, and before it the usage of
 * the period before that reported after its invoice was made (a late line naming that period), when the
 * meter's total for it now differs from what was billed. The invoice's key makes each line billed once.
 */
async function usageLines(
  db: Queryable,
  input: Pick<
    RenewalInvoiceInput,
    'accountId' | 'subscriptionId' | 'customerId' | 'items' | 'usagePeriod' | 'keptUsage'
  > & { usageUpTo?: number },
  active: Set<string>,
): Promise<BillingLine[]> {
  const period = input.usagePeriod;
  const metered = period ? input.items.filter((item) => item.metered) : [];
  const kept = input.keptUsage ?? [];
  if (metered.length === 0 && kept.length === 0) return [];
  const prices = new Map(
    (
      await readPrices(db, input.accountId, [
        ...new Set([...metered.map((item) => item.priceId), ...kept.map((usage) => usage.priceId)]),
      ])
    ).map((price) => [price.id, price]),
  );
  const meterOf = (priceId: string) => {
    const meter = prices.get(priceId)?.recurring?.meter;
    if (!meter) throw notFound('price', priceId);
    return meter;
  };
  const total = (meter: string, from: number, to: number) =>
    meterTotal(db, input.accountId, meter, input.customerId, { from: new Date(from), to: new Date(to) });
  const lines: BillingLine[] = [];
  // Items changed away inside the period: their usage up to the change, on a line naming that part of it.
  for (const usage of kept) {
    const used = await total(meterOf(usage.priceId), usage.start, usage.end);
    lines.push({
      priceId: usage.priceId,
      quantity: used,
      taxRateIds: usage.taxRateIds.filter((id) => active.has(id)),
      period: asPeriod(usage.start, usage.end),
      usage: { total: used, billedBefore: 0 },
    });
  }
  for (const item of metered) {
    if (!period) break;
    const meter = meterOf(item.priceId);
    const taxRateIds = item.taxRateIds.filter((id) => active.has(id));
    // An item added or moved to its price inside the period bills from then on (the part before was kept usage).
    const from = Math.max(period.start, item.usageFrom ?? period.start);
    // The last period billed and what threshold invoices billed of this one already, in one read.
    const { last: billed, billedFrom: billedBefore } = await billedUsageBeforePeriod(
      db,
      input.accountId,
      input.subscriptionId,
      item.priceId,
      { before: new Date(period.start), from: new Date(from) },
    );
    if (billed) {
      const now = await total(meter, billed.periodStart.getTime(), billed.periodEnd.getTime());
      if (now !== billed.quantity)
        lines.push({
          priceId: item.priceId,
          quantity: now - billed.quantity,
          taxRateIds,
          period: asPeriod(billed.periodStart.getTime(), billed.periodEnd.getTime()),
          usage: { total: now, billedBefore: billed.quantity, late: true },
        });
    }
    // A threshold's invoice counts up to its time; the period's own, to its end.
    const upTo = Math.min(period.end, input.usageUpTo ?? period.end);
    // Moved in the second the period closes: nothing of the period is its own.
    if (from >= upTo) continue;
    const used = await total(meter, from, upTo);
    // What threshold invoices billed of the period already (billedBefore) is not billed again: the line bills the
    // rest, priced as the difference its tiers make (docs/decisions.md §43, "Billing thresholds").
    lines.push({
      priceId: item.priceId,
      quantity: used - billedBefore,
      taxRateIds,
      period: asPeriod(from, period.end),
      usage: { total: used, billedBefore },
    });
  }
  return lines;
}

/**
 * The period's invoice as the invoice module takes it from billing code: the idempotency key names the
 * period. The upcoming-invoice preview bills the same input (src/subscriptions/upcoming-invoice.ts).
 */
export async function periodInvoice(
  db: Queryable,
  input: RenewalInvoiceInput,
  { discountWithDraft = false }: { discountWithDraft?: boolean } = {},
): Promise<BillingInvoiceInput> {
  const pending = await capWaitingCredits(db, input.accountId, input.subscriptionId, input.pendingLines ?? []);
  const active = await activeRates(db, input.accountId, [
    ...input.items.map((item) => item.taxRateIds),
    ...(input.keptUsage ?? []).map((usage) => usage.taxRateIds),
    ...taxRatesOf(pending),
  ]);
  return {
    customerId: input.customerId,
    currency: input.currency,
    collectionMethod: input.collectionMethod,
    dueDate:
      input.collectionMethod === 'send_invoice'
        ? seconds(input.periodStart) + SEND_INVOICE_DUE_DAYS * DAY_SECONDS
        : undefined,
    lines: [
      // Metered items bill the usage of the period that closed, not this one in advance (docs/decisions.md §43).
      ...licensedItems(input.items).map((item) => ({
        priceId: item.priceId,
        quantity: item.quantity,
        taxRateIds: item.taxRateIds.filter((id) => active.has(id)),
      })),
      ...(await usageLines(db, input, active)),
      ...pendingBillingLines(pending, active),
    ],
    subscriptionId: input.subscriptionId,
    billingReason: input.billingReason,
    period: { start: seconds(input.periodStart), end: seconds(input.periodEnd) },
    idempotencyKey: renewalInvoiceKey(input.subscriptionId, input.periodStart),
    // Read when the invoice is made, in the activity that makes it (docs/decisions.md §37): the preview reads the same.
    // discountWithDraft: the same discount, read with the draft's inputs (one statement fewer where the invoice is
    // made, and in its previews).
    ...(discountWithDraft
      ? { discountOfPeriod: { subscriptionId: input.subscriptionId, periodStart: new Date(input.periodStart) } }
      : {
          discount: await periodDiscount(
            db,
            input.accountId,
            input.subscriptionId,
            input.customerId,
            input.periodStart,
          ),
        }),
  };
}

/**
 * Proration lines invoiced at once (`always_invoice`, docs/decisions.md §25): what the invoice bills,
 * and the key that names it (the subscription and the state version the change writes), so a retried
 * activity finds the invoice and the attempt it made.
 */
export interface ImmediateInvoiceInput {
  accountId: string;
  subscriptionId: string;
  customerId: string;
  currency: string;
  collectionMethod: CollectionMethod;
  paymentMethodId: string | null;
  lines: PendingLine[];
  /** Workflow ms: the change's time, the lines' start. */
  at: number;
  /** The version of the state the change writes. */
  version: number;
  /**
   * The subscription ends with this invoice: the usage of its metered items (`items`) over `period`, the
   * final usage (docs/decisions.md §43). Absent: none (inputs recorded before it, and subscriptions without
   * metered items).
   */
  finalUsage?: {
    items: SubscriptionItemState[];
    /** Absent when no metered item is left (only `kept` to bill). */
    period?: { start: number; end: number };
    /** The usage of metered items changed away during the period (docs/decisions.md §43); absent: none. */
    kept?: KeptUsage[];
    /** A threshold's invoice: the usage of `period` up to this time (workflow ms) only; absent: to its end. */
    upTo?: number;
  };
  /** The invoice's billing_reason; absent: subscription_update (a change's or an ending's). */
  billingReason?: 'subscription_threshold';
  /**
   * The subscription ends with this invoice (cancel or end_date with prorate): a credit below zero the
   * customer's balance could not take cannot be carried, so it is refunded to the card from the invoice
   * that billed this period (its start, ms).
   */
  endingPeriodStart?: number;
}

/**
 * The credit of an ending subscription that the customer's balance could not take (another currency
 * there; invoices finalized before the balance took such credit) (docs/decisions.md §25), refunded to the card from the invoice
 * that billed the period, at most what that invoice has left to refund (one refund, named after the
 * change: a retry finds it). Answers the cents refunded; what could not be stays on the final invoice.
 */
async function refundEndingCredit(
  prisma: Db,
  gateways: Gateways,
  input: ImmediateInvoiceInput,
  credit: number,
): Promise<number> {
  const periodInvoiceId = await renewalInvoiceId(prisma, {
    subscriptionId: input.subscriptionId,
    periodStart: new Date(input.endingPeriodStart!),
  });
  if (!periodInvoiceId) return 0;
  const attemptKey = `${immediateInvoiceKey(input.subscriptionId, input.version)}:ending-credit`;
  const invoice = await findInvoice(prisma, input.accountId, periodInvoiceId);
  const cardLeft = invoice.amountPaid - invoice.amountRefunded;
  const creditable = await invoiceCreditable(prisma, invoice);
  const refundable = Number(cardLeft < creditable ? cardLeft : creditable);
  const existing = await findRefundByKey(prisma, input.accountId, periodInvoiceId, `refund:${attemptKey}`);
  if (existing) return -Number(existing.amount);
  if (invoice.status !== 'paid' || refundable <= 0) return 0;
  const refund = await refundInvoice(prisma, gateways, input.accountId, periodInvoiceId, {
    amount: Math.min(credit, refundable),
    attemptKey,
  });
  return -refund.amount;
}

/**
 * The unit amounts of `priceIds`, for proration at the time of a change (src/subscriptions/proration.ts):
 * read once, under the workflow's lock, and kept in the lines it computes.
 */
export async function priceUnitAmounts(
  prisma: Db,
  accountId: string,
  priceIds: string[],
): Promise<Record<string, number>> {
  const prices = await readPrices(prisma, accountId, [...new Set(priceIds)]);
  const amounts = Object.fromEntries(prices.map((price) => [price.id, price.unit_amount]));
  const missing = priceIds.find((id) => amounts[id] === undefined);
  if (missing) throw notFound('price', missing);
  return amounts;
}

/** Idempotency key of an immediate proration invoice. */
export function immediateInvoiceKey(subscriptionId: string, version: number): string {
  return `subscription:${subscriptionId}:change:${version}`;
}

export async function immediateInvoice(db: Queryable, input: ImmediateInvoiceInput): Promise<BillingInvoiceInput> {
  const lines = await capWaitingCredits(db, input.accountId, input.subscriptionId, input.lines);
  const usageItems = input.finalUsage?.items ?? [];
  const kept = input.finalUsage?.kept ?? [];
  const active = await activeRates(db, input.accountId, [
    ...taxRatesOf(lines),
    ...usageItems.map((item) => item.taxRateIds),
    ...kept.map((usage) => usage.taxRateIds),
  ]);
  const usage = input.finalUsage
    ? await usageLines(
        db,
        {
          ...input,
          items: usageItems,
          usagePeriod: input.finalUsage.period,
          keptUsage: kept,
          usageUpTo: input.finalUsage.upTo,
        },
        active,
      )
    : [];
  return {
    customerId: input.customerId,
    currency: input.currency,
    collectionMethod: input.collectionMethod,
    dueDate:
      input.collectionMethod === 'send_invoice' ? seconds(input.at) + SEND_INVOICE_DUE_DAYS * DAY_SECONDS : undefined,
    lines: [...usage, ...pendingBillingLines(lines, active)],
    subscriptionId: input.subscriptionId,
    billingReason: input.billingReason ?? 'subscription_update',
    period: { start: seconds(input.at), end: seconds(input.at) },
    idempotencyKey: immediateInvoiceKey(input.subscriptionId, input.version),
    // An early invoice takes the discount in force when it is made, as the period's invoice does; a `once`
    // discount goes to whichever of them takes something off first (docs/decisions.md §43, "Billing thresholds").
    discount:
      input.billingReason === 'subscription_threshold'
        ? await periodDiscount(db, input.accountId, input.subscriptionId, input.customerId, input.at)
        : undefined,
  };
}

/**
 * What an immediate invoice came to. `creditedToBalance`: its total below zero went to the customer's
 * balance at finalization (docs/decisions.md §25), so the subscription carries nothing; absent from
 * results recorded before the balance took such credit (workflow code then carries a total below zero).
 */
export interface ImmediateInvoiceResult {
  invoiceId: string;
  total: number;
  status: string;
  refunded?: number;
  creditedToBalance?: boolean;
  /** Its charge was declined or could not be made (absent: charged, held, or not charged automatically). */
  declined?: boolean;
  /** Its processor holds the charge (a bank debit): the outcome is recorded later (docs/decisions.md §40). */
  held?: boolean;
}

/** The final invoice of an ending that bills metered usage (a threshold's invoice bills usage too, but ends nothing). */
const isEndingInvoice = (input: ImmediateInvoiceInput) =>
  input.finalUsage !== undefined && input.billingReason === undefined;

/**
 * An ending's final invoice: the meters' totals read, the invoice written and the subscription's usage closed at
 * the ending in one transaction holding the customer's usage, as a period's invoice closes its window with its
 * renewal row (docs/decisions.md §43, "No event slips between a batch and an invoice"). A batch of events checked
 * before it is on the invoice; one checked after it is refused (usage_period_closed). Retries find the invoice
 * their key made.
 */
async function createEndingInvoice(prisma: Db, input: ImmediateInvoiceInput): Promise<{ id: string; total: number }> {
  return sqlTransaction(prisma, async (tx) => {
    await holdCustomerUsage(tx, input.customerId);
    const key = immediateInvoiceKey(input.subscriptionId, input.version);
    const invoice = await findOrCreateInvoiceForBilling(tx, input.accountId, () => immediateInvoice(tx, input), key);
    await closeSubscriptionUsage(tx, input.accountId, input.subscriptionId, new Date(input.at));
    return invoice;
  });
}

/**
 * `always_invoice`: the change's proration lines invoiced, finalized and (charge_automatically) charged
 * now, once whatever the retries (the invoice's key, then the attempt's). A declined charge leaves the
 * invoice open with invoice.payment_failed and no dunning: the change stands (Stripe's
 * allow_incomplete). A total below zero goes to the customer's balance at finalization; the
 * subscription carries it only when the balance could not take it.
 */
export async function invoiceProrationsNow(
  prisma: Db,
  gateways: Gateways,
  input: ImmediateInvoiceInput,
): Promise<ImmediateInvoiceResult> {
  const invoice = isEndingInvoice(input)
    ? await createEndingInvoice(prisma, input)
    : await createKeyedInvoice(prisma, input.accountId, await immediateInvoice(prisma, input));
  const finalized = await finalizeInvoice(prisma, input.accountId, invoice.id, { allowFinalized: true });
  const made = { invoiceId: invoice.id, total: invoice.total, creditedToBalance: finalized.applied_balance < 0 };
  if (invoice.total < 0 && input.endingPeriodStart !== undefined && !made.creditedToBalance) {
    const refunded = await refundEndingCredit(prisma, gateways, input, -invoice.total);
    return { ...made, status: finalized.status, refunded };
  }
  if (finalized.status !== 'open' || input.collectionMethod !== 'charge_automatically')
    return { ...made, status: finalized.status };
  const collection = await collectInvoice(prisma, gateways, input.accountId, invoice.id, {
    paymentMethodId: input.paymentMethodId ?? undefined,
    attemptKey: `${immediateInvoiceKey(input.subscriptionId, input.version)}:attempt:1`,
    origin: { origin: 'subscription_change' },
  });
  const status = collection.outcome === 'paid' || collection.outcome === 'already_paid' ? 'paid' : 'open';
  const declined = collection.outcome === 'failed' || collection.outcome === 'not_attempted';
  const held = collection.outcome === 'pending';
  return {
    ...made,
    status: collection.outcome === 'void' ? 'void' : status,
    ...(declined ? { declined } : {}),
    ...(held ? { held } : {}),
  };
}

/** A billing threshold's check (docs/decisions.md §43, "Billing thresholds"): the usage to date, and its amount_gte. */
export interface ThresholdInvoiceInput extends ImmediateInvoiceInput {
  threshold: number;
}

/**
 * `dunning`: the early invoice's charge was declined, and the account's dunning settings then, which the workflow
 * retries it by as the period's invoice (absent from results recorded before early invoices were dunned).
 */
export type ThresholdInvoiceResult =
  | { invoiced: false; amount: number }
  | ({ invoiced: true; dunning?: { retryDays: number[]; outcome: DunningOutcome } } & ImmediateInvoiceResult);

/**
 * The usage of the period to date not yet billed, invoiced and charged at once (billing_reason
 * subscription_threshold) when its amount before tax reaches the threshold, or nothing. Under the workflow's lock,
 * one check at a time; a retry finds the invoice its key names and finishes it instead of judging again (the
 * usage it billed would now read as billed).
 */
export async function invoiceThresholdUsage(
  prisma: Db,
  gateways: Gateways,
  input: ThresholdInvoiceInput,
): Promise<ThresholdInvoiceResult> {
  const made = await findInvoiceIdByKey(
    prisma,
    input.accountId,
    immediateInvoiceKey(input.subscriptionId, input.version),
  );
  if (!made) {
    const preview = await previewInvoiceForBilling(prisma, input.accountId, await immediateInvoice(prisma, input));
    if (preview.total_excluding_tax < input.threshold) return { invoiced: false, amount: preview.total_excluding_tax };
  }
  const invoiced = await invoiceProrationsNow(prisma, gateways, input);
  if (!invoiced.declined) return { invoiced: true, ...invoiced };
  const settings = await getDunningSettings(prisma, input.accountId);
  return { invoiced: true, ...invoiced, dunning: { retryDays: settings.retry_days, outcome: settings.outcome } };
}

/** A period's invoice: its id, and its total (below zero only with credits: docs/decisions.md §25, "Totals below zero"). */
export interface RenewalInvoice {
  invoiceId: string;
  /** Absent from results recorded before proration: workflow code reads it as not below zero. */
  total?: number;
}

async function recordRenewal(
  db: Queryable,
  input: RenewalInvoiceInput,
  invoice: { id: string; total: number },
): Promise<RenewalInvoice> {
  await insertRenewal(db, periodKey(input), input.accountId, new Date(input.periodEnd), invoice.id);
  return { invoiceId: invoice.id, total: invoice.total };
}

/** The period's draft invoice (invoice.created), made once per period whatever the retries. A 4xx ApiError when the items can no longer be billed. */
export async function createRenewalInvoice(prisma: Db, input: RenewalInvoiceInput): Promise<RenewalInvoice> {
  if (input.usagePeriod) return createUsageRenewalInvoice(prisma, input);
  const invoice = await createKeyedInvoice(prisma, input.accountId, await periodInvoice(prisma, input));
  return recordRenewal(prisma, input, invoice);
}

/**
 * A period's invoice that bills usage: the meters' totals read, the invoice and its renewal row written in one
 * transaction holding the customer's usage (docs/decisions.md §43, "Late events"). A batch of events checked
 * before it is in the totals; one checked after it finds the window its renewal row closed: no event is
 * accepted into a period whose invoice has read its total, and none is lost between the two. Retries find the
 * invoice their key made.
 */
async function createUsageRenewalInvoice(prisma: Db, input: RenewalInvoiceInput): Promise<RenewalInvoice> {
  return sqlTransaction(prisma, async (tx) => {
    await holdCustomerUsage(tx, input.customerId);
    const key = renewalInvoiceKey(input.subscriptionId, input.periodStart);
    const invoice = await findOrCreateInvoiceForBilling(tx, input.accountId, () => periodInvoice(tx, input), key);
    return recordRenewal(tx, input, invoice);
  });
}

/** createRenewalInvoiceInTx of an invoice charged automatically, written finalized with its attempt 1 opened when it can be. */
async function createChargedRenewalInvoiceInTx(
  tx: AnyTx,
  input: RenewalInvoiceInput,
  attempt: Omit<RenewalChargeInput, 'invoiceId'>,
  invoiceId: string | undefined,
): Promise<Awaited<ReturnType<typeof createChargedInvoiceForBilling>>> {
  if (input.usagePeriod) await holdCustomerUsage(tx, input.customerId);
  const id = invoiceId ?? newUuid();
  // The period's row names its invoice by id alone: written before the invoice, whose insert locks the account's
  // invoice-number counter until the commit, it is one round trip fewer held under that lock (docs/performance.md,
  // "Twenty-third round"). Nothing the draft reads is in it.
  await insertRenewal(tx, periodKey(input), input.accountId, new Date(input.periodEnd), id);
  return createChargedInvoiceForBilling(
    tx,
    input.accountId,
    { ...(await periodInvoice(tx, input, { discountWithDraft: true })), id },
    attemptOptions(attempt),
  );
}

/** createRenewalInvoice in the caller's transaction (billPeriod's). */
async function createRenewalInvoiceInTx(
  tx: AnyTx,
  input: RenewalInvoiceInput,
  invoiceId?: string,
): Promise<RenewalInvoice> {
  if (input.usagePeriod) await holdCustomerUsage(tx, input.customerId);
  const invoice = await createInvoiceForBilling(tx, input.accountId, {
    ...(await periodInvoice(tx, input)),
    id: invoiceId,
  });
  return recordRenewal(tx, input, invoice);
}

/** draft -> open (invoice.finalized; a send_invoice invoice's email and invoice.sent follow, docs/decisions.md §30), once. Answers the invoice's status; a voided invoice voids its renewal. */
/**
 * A renewal invoice after finalization: its status, and its number for people reading the workflow's
 * timeline (null once voided unnumbered). `creditedToBalance`: its total below zero went to the
 * customer's balance (docs/decisions.md §25); absent from results recorded before that, when the
 * subscription carried such a total to its next invoice.
 */
export interface FinalizedRenewal {
  status: 'open' | 'paid' | 'void';
  number?: string | null;
  creditedToBalance?: boolean;
}

export async function finalizeRenewalInvoice(
  prisma: Db,
  input: RenewalPeriod & { invoiceId: string },
): Promise<FinalizedRenewal> {
  return sqlTransaction(prisma, async (tx) => (await finalizeRenewalInvoiceInTx(tx, input)).finalized);
}

/** finalizeRenewalInvoice in the caller's transaction, with the invoice as it left it (its lock held). */
async function finalizeRenewalInvoiceInTx(
  tx: AnyTx,
  input: RenewalPeriod & { invoiceId: string },
): Promise<{ finalized: FinalizedRenewal; invoice: InvoiceWithLines }> {
  let invoice = await lockInvoice(tx, input.accountId, input.invoiceId);
  if (invoice.status === 'void') {
    await setRenewalStatus(tx, periodKey(input), 'void');
    const finalized = {
      status: 'void',
      number: invoice.number,
      creditedToBalance: invoice.appliedBalance < 0n,
    } as const;
    return { finalized, invoice };
  }
  if (invoice.status === 'draft') invoice = await finalizeInTx(tx, input.accountId, invoice);
  if (invoice.collectionMethod === 'send_invoice') {
    await setRenewalStatus(tx, periodKey(input), 'sent', 'invoiced');
  }
  const finalized: FinalizedRenewal = {
    status: invoice.status === 'paid' ? 'paid' : 'open',
    number: invoice.number,
    creditedToBalance: invoice.appliedBalance < 0n,
  };
  return { finalized, invoice };
}

async function recordAttempt(
  prisma: Queryable,
  input: RenewalChargeInput,
  status: string,
  failureCode: string | null,
): Promise<void> {
  // An early invoice has no renewal row: its attempts show on the invoice only.
  if (input.earlyInvoiceVersion !== undefined) return;
  await recordRenewalAttempt(prisma, periodKey(input), status, input.attempt, failureCode);
}

/**
 * No charge could even be attempted (no usable payment method): still a failed attempt, once, and the
 * invoice counts it (attempted, attempt_count grown) as a declined charge would, so that the
 * invoice.payment_failed it carries shows the attempt (api.md, Subscriptions: renewals).
 */
async function recordAttemptWithoutCharge(prisma: Db, input: RenewalChargeInput, code: string): Promise<void> {
  await sqlTransaction(prisma, async (tx) => {
    const key = periodKey(input);
    // The invoice first, then the period, in the order finalizeRenewalInvoiceInTx takes them.
    const invoice = await lockInvoice(tx, input.accountId, input.invoiceId);
    if (input.earlyInvoiceVersion !== undefined) {
      // No renewal row: the invoice's own count says whether this attempt was recorded.
      if (invoice.attemptCount >= input.attempt) return;
    } else {
      const attemptCount = await lockRenewalAttemptCount(tx, key);
      if (attemptCount !== null && attemptCount >= input.attempt) return;
      await recordRenewalAttempt(tx, key, 'payment_failed', input.attempt, code);
    }
    const attempted =
      invoice.status === 'open'
        ? await updateLockedInvoice(tx, invoice, { attemptCount: invoice.attemptCount + 1 })
        : invoice;
    await recordEvent(tx, input.accountId, 'invoice.payment_failed', toInvoiceObject(attempted));
  });
}

/** The origin a period's attempt records: its own charge for attempt 1, else what the workflow said it was. */
function chargeOriginOf(input: Omit<RenewalChargeInput, 'invoiceId'>): { origin?: ChargeOrigin } {
  if (input.attempt === 1) return { origin: { origin: 'subscription_period' } };
  return input.retry ? { origin: input.retry } : {};
}

/** How collectInvoice names and charges an attempt of a renewal invoice: the same wherever the attempt is opened. */
function attemptOptions(input: Omit<RenewalChargeInput, 'invoiceId'>) {
  const attemptKey =
    input.earlyInvoiceVersion === undefined
      ? renewalAttemptKey(input.subscriptionId, input.periodStart, input.attempt)
      : `${immediateInvoiceKey(input.subscriptionId, input.earlyInvoiceVersion)}:attempt:${input.attempt}`;
  return { paymentMethodId: input.paymentMethodId ?? undefined, attemptKey, ...chargeOriginOf(input) };
}

export interface RenewalChargeOptions {
  /** Reads the attempt's receipt for the result (true unless given). */
  receipt?: boolean;
  /** The attempt, opened already with the invoice (billPeriod): sent as it is. */
  opened?: OpenedEntry | null;
  /** What the caller records with the attempt's success, in the transaction that settles it (PayInvoiceOptions). */
  whenPaid?: PayInvoiceOptions['whenPaid'];
}

/**
 * One charge attempt of a renewal invoice (invoice.payment_succeeded or invoice.payment_failed).
 * The attempt key (subscription, period, attempt number) makes a retried or crashed activity finish
 * the same attempt instead of charging again. A failure answers the account's dunning settings.
 */
export async function chargeRenewalInvoice(
  prisma: Db,
  gateways: Gateways,
  input: RenewalChargeInput,
  { receipt = true, opened, whenPaid }: RenewalChargeOptions = {},
): Promise<RenewalChargeResult> {
  const options = attemptOptions(input);
  // A success records the period's attempt in the transaction that settles it (one commit fewer).
  let paidRecorded = false;
  const collection = await collectInvoice(prisma, gateways, input.accountId, input.invoiceId, {
    ...options,
    opened: opened ?? undefined,
    whenPaid: async (tx, paid, settled) => {
      await recordAttempt(tx, input, 'paid', null);
      await whenPaid?.(tx, paid, settled);
      paidRecorded = true;
    },
  });
  // The receipt is for the workflow's history; the API's first charge (which the workflow reports) skips it.
  const charge = receipt
    ? await attemptReceipt(prisma, input.accountId, input.invoiceId, options.attemptKey)
    : undefined;
  switch (collection.outcome) {
    case 'paid':
    case 'already_paid':
      if (!paidRecorded) await recordAttempt(prisma, input, 'paid', null);
      return { outcome: 'paid', charge };
    case 'void':
      await recordAttempt(prisma, input, 'void', null);
      return { outcome: 'void', charge };
    case 'pending':
      await recordAttempt(prisma, input, 'payment_pending', null);
      return { outcome: 'pending', charge };
    case 'failed':
      await recordAttempt(prisma, input, 'payment_failed', collection.failureCode);
      break;
    case 'not_attempted':
      await recordAttemptWithoutCharge(prisma, input, collection.failureCode);
      break;
  }
  const settings = await getDunningSettings(prisma, input.accountId);
  return {
    outcome: 'failed',
    failureCode: collection.failureCode,
    retryDays: settings.retry_days,
    dunningOutcome: settings.outcome,
    charge,
  };
}

/**
 * The first invoice of a subscription the API created (decisions.md §14), as its workflow finds it:
 * finalized (as it was in the creation's transaction) and, once paid, the result of the API's attempt 1
 * with its receipt (the attempt key finds that charge; nothing is charged again). `apiAttempt` is null
 * while the invoice is open (the workflow's charge activity then makes attempt 1) or when nothing is
 * charged automatically.
 */
export async function settleCreatedInvoice(
  prisma: Db,
  gateways: Gateways,
  input: RenewalChargeInput & { collectionMethod: CollectionMethod },
): Promise<FinalizedRenewal & { apiAttempt: RenewalChargeResult | null }> {
  const { status, number } = await finalizeRenewalInvoice(prisma, input);
  const { collectionMethod, ...attempt } = input;
  if (status !== 'paid' || collectionMethod !== 'charge_automatically') return { status, number, apiAttempt: null };
  return { status, number, apiAttempt: await chargeRenewalInvoice(prisma, gateways, attempt) };
}

/** A period billPeriod invoiced and finalized; its charge, if any, is made after the caller's commit. */
export interface InvoicedPeriod {
  /** The state with the period invoiced (periodInvoiced): what the row shows until the period is recorded billed. */
  state: SubscriptionState;
  invoiceId: string;
  status: FinalizedRenewal['status'];
  /** Attempt 1, for chargeRenewalInvoice once the transaction has committed; null when nothing is charged now. */
  charge: RenewalChargeInput | null;
  /** Attempt 1 opened in the caller's transaction (null: nothing charged now, or no usable method to open it with). */
  opened: OpenedEntry | null;
}

/**
 * Bills period `index` of `state` in the caller's transaction: the invoice made and finalized as the
 * workflow's steps make them (same period key, same renewal row: its bill(index) finds them done), and
 * attempt 1 opened pending for the caller to send after its commit (no call out inside a transaction).
 * `alongside` writes what goes with the invoiced state in the same transaction, before finalizing:
 * that takes the account's invoice-number counter, held until the commit. `invoiceId`: the id the invoice
 * takes, when the caller named it before (a new one otherwise).
 */
export async function billPeriod<T>(
  tx: AnyTx,
  state: SubscriptionState,
  index: number,
  alongside: (invoiced: SubscriptionState, invoiceId: string) => Promise<T>,
  invoiceId?: string,
): Promise<InvoicedPeriod & { alongside: T }> {
  const toBill = periodToBill(state, index);
  const period: RenewalPeriod = {
    accountId: state.accountId,
    subscriptionId: state.id,
    periodStart: toBill.periodStart,
  };
  const firstAttempt = { ...period, attempt: 1, paymentMethodId: state.defaultPaymentMethodId };
  // Charged automatically, the invoice is written finalized with attempt 1 opened when nothing changes it on
  // finalization (createChargedInvoiceForBilling); otherwise as a draft, finalized below.
  const made =
    state.collectionMethod === 'charge_automatically'
      ? await createChargedRenewalInvoiceInTx(tx, toBill, firstAttempt, invoiceId)
      : null;
  const madeId = made?.invoice.id ?? (await createRenewalInvoiceInTx(tx, toBill, invoiceId)).invoiceId;
  const invoiced = periodInvoiced(state, index, madeId);
  const written = await alongside(invoiced, madeId);
  const { finalized, invoice } = made?.opened
    ? { finalized: { status: 'open' as const }, invoice: made.invoice }
    : await finalizeRenewalInvoiceInTx(tx, { ...period, invoiceId: madeId });
  const charge = chargedOnFinalize(state, finalized.status) ? { ...firstAttempt, invoiceId: madeId } : null;
  // The attempt opened here commits with the invoice, before the processor is called after the commit, as the
  // charge protocol requires (docs/performance.md, "Sixteenth round"): a crash leaves it to the workflow's attempt 1
  // (the same key) or the reconciliation.
  const opened =
    made?.opened ??
    (charge && !made?.methodMissing ? await openFirstAttempt(tx, invoice, attemptOptions(charge)) : null);
  return { state: invoiced, invoiceId: madeId, status: finalized.status, charge, opened, alongside: written };
}
