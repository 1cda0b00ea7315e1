import type { ChargeOrigin } from '../transactions';
import type { z } from 'zod';
import type { Customer, Invoice, PaymentMethod, Prisma } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';
import { assertBillablePrice, findPricesForUse, markPricesBilled } from '../catalog';
import { isMeteredPrice, pricingOf } from '../catalog';
import type { PriceObject } from '../catalog';
import { priceUsageLine, type LinePricing } from '../usage';
import { computeTax, type TaxAmount, type TaxBehavior } from '../catalog';
import { findTaxRates } from '../catalog';
import { lockCustomer, readCustomerEvenDeleted } from '../customers';
import type { AnyTx, Queryable } from '../db/sql';
import { sqlTransaction } from '../db/sql-transaction';
import { ApiError, badRequest, conflict, notFound, orNotFound } from '../http/errors';
import { parseOrThrow } from '../http/validation';
import { recordEvent, recordEvents } from '../lib/events';
import { newId, newUuid } from '../lib/ids';
import { formatMoney, MAX_CHARGE_AMOUNT } from '../lib/money';
import { fromUnixSeconds } from '../lib/time';
import { allocateInvoiceNumber } from './invoice-number.records';
import {
  findInvoiceByNumber,
  findInvoiceCustomerId,
  findInvoiceIdByKey,
  findInvoiceMadeByKey,
  findInvoiceRow,
  insertFinalizedInvoiceWithLines,
  insertInvoiceWithLines,
  unwrittenInvoiceWithLines,
  readProductName,
  toInvoiceObject,
  updateLockedInvoice,
  type InvoiceWithLines,
  type NewInvoice,
  type NewInvoiceLine,
} from './invoice.records';
import { readDraftInputs, type LockedLinePrice } from './invoice-draft-inputs.records';
import { createInvoiceBody, type CreateInvoiceInput, type InvoiceObject } from './invoice.schemas';
import { createHostedInvoiceLink, newHostedLink } from './hosted-link.records';
import { lockInvoice } from './invoice-lock';
import { currentTime } from '../lib/clock-time';
import { onCustomerTime } from '../test-clocks';
import {
  applyBalanceToInvoice,
  countPendingEntries,
  creditBalanceFromInvoice,
  recordBalanceEntry,
  recordNothingDue,
} from '../transactions';
import { toCustomerObject } from '../customers';
import { discountParts, type DiscountTerms } from '../coupons';
import { useOnceDiscount } from '../coupons';
import { readAccountSellerInTx, type AccountSeller } from '../accounts';
import { invoiceSettled } from './invoice-settlement';

/** An invoice of the account with its lines, or 404 (also for another account's invoice). */
export async function findInvoice(db: Db | Tx, accountId: string, id: string): Promise<InvoiceWithLines> {
  return orNotFound(await findInvoiceRow(db, accountId, id), 'invoice', id);
}

/** customer.updated with the customer as its balance now stands (a balance entry changed it). */
export async function recordCustomerUpdated(tx: AnyTx, accountId: string, customerId: string): Promise<void> {
  const customer = await readCustomerEvenDeleted(tx, accountId, customerId);
  if (customer) await recordEvent(tx, accountId, 'customer.updated', toCustomerObject(customer));
}

export interface CreateInvoiceOptions {
  subscriptionId?: string;
  /** `manual` for API-created invoices; subscription billing passes e.g. `subscription_create`, `subscription_cycle`. */
  billingReason?: string;
  /** Unix seconds; the invoice's and its lines' period (creation time when absent). */
  periodStart?: number;
  periodEnd?: number;
  /** A second call with the same key answers the invoice the first call created. */
  idempotencyKey?: string;
}

/** Unix seconds, as the invoice shows them. */
export interface InvoicePeriod {
  start: number;
  end: number;
}

/**
 * A line as billing code gives it: a price's (its unit amount, and its description or its product's
 * name unless one is given), or an amount of its own with a description. Its period is the
 * invoice's unless it has one (a proration's part of a period); tax rates are checked active.
 */
export type BillingLine = {
  quantity: number;
  taxRateIds: string[];
  period?: InvoicePeriod;
} & (
  | { priceId: string; description?: string; proration?: LineProration; usage?: LineUsage }
  | { priceId?: undefined; description: string; unitAmount: number }
);

/**
 * A price line's share of a period (docs/decisions.md §25): its amount is the prorated cents given
 * (negative for a credit), not unit_amount x quantity; its description says which share it is.
 */
export interface LineProration {
  kind: 'unused' | 'remaining';
  amount: number;
}

/**
 * A metered price's line (docs/decisions.md §43): the usage of the line's period, priced through the price's
 * scheme (tiers, packages) by priceQuantity. `total` is the period's usage now, `billedBefore` what earlier lines
 * billed of it (0 but for late usage): the line bills the difference, quantity `total - billedBefore`, and the
 * amount `price(total) - price(billedBefore)`, so the tiers see the period's whole usage.
 */
export interface LineUsage {
  total: number;
  billedBefore: number;
  /** Usage of a period an earlier invoice billed, reported after it (docs/decisions.md §43). */
  late?: boolean;
}

const isoDay = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);

/** "Tokens usage, 2026-01-01 to 2026-02-01"; a late line says so, naming its period. */
function usageDescription(usage: LineUsage, name: string, period: InvoicePeriod | undefined): string {
  const span = period ? `, ${isoDay(period.start)} to ${isoDay(period.end)}` : '';
  return usage.late ? `${name} usage reported late${span}` : `${name} usage${span}`;
}

/** "Unused time on 2 × Pro after 2026-01-10 12:00:00 UTC" (Stripe's wording). */
function prorationDescription(proration: LineProration, quantity: number, name: string, from: number | undefined) {
  const what = proration.kind === 'unused' ? 'Unused time on' : 'Remaining time on';
  const after =
    from === undefined ? '' : ` after ${new Date(from * 1000).toISOString().replace('T', ' ').slice(0, 19)} UTC`;
  return `${what} ${quantity} × ${name}${after}`;
}

/**
 * An invoice as billing code makes it (createInvoiceForBilling): typed, not a request body, so a
 * line the API does not take (one with its own period) needs no change to the public schema. The
 * public POST /invoices maps its parsed body onto it.
 */
export interface BillingInvoiceInput {
  customerId: string;
  /** The prices' currency, else the customer's, else USD when absent. */
  currency?: string;
  collectionMethod: 'charge_automatically' | 'send_invoice';
  /** Unix seconds; none when absent. */
  dueDate?: number;
  lines: BillingLine[];
  /** A subscription's invoice may bill recurring prices; one without bills one-time prices only. */
  subscriptionId?: string;
  billingReason?: string;
  /** The invoice's period; its creation time when absent. */
  period?: InvoicePeriod;
  /** A second call with the same key answers the invoice the first call created. */
  idempotencyKey?: string;
  /** The discount the invoice takes, as discount lines (docs/decisions.md §37): subscription periods only. */
  discount?: InvoiceDiscount;
  /**
   * Instead of `discount`: the discount the subscription's period starting at `periodStart` takes (the coupons'
   * periodDiscount), read with the draft's inputs in one statement when the invoice is made.
   */
  discountOfPeriod?: { subscriptionId: string; periodStart: Date };
  /** The id the invoice takes, when its caller named it before (a subscription written with its first invoice's id); a new one when absent. */
  id?: string;
}

/** A discount as billing code hands it to the invoice: which (di_), what it takes off, and how often. */
export interface InvoiceDiscount {
  id: string;
  /** The coupon's name (or id), for the discount lines' description. */
  label: string;
  terms: DiscountTerms;
  /** amount_off coupons: their currency; an invoice in another takes nothing off. */
  currency: string | null;
  /** `once`: taken by the first invoice it takes something off, then used up. */
  once: boolean;
}

/** Re-labels a lookup's 404 with the request field that named the missing thing. */
export async function withParam<T>(param: string, lookup: () => Promise<T>): Promise<T> {
  try {
    return await lookup();
  } catch (error) {
    if (error instanceof ApiError && error.status === 404)
      throw new ApiError('not_found', error.code, error.message, param);
    throw error;
  }
}

interface PricedLine {
  description: string | null;
  priceId: string | null;
  currency: string | null;
  quantity: number;
  unitAmount: number;
  amount: number;
  amountExcludingTax: number;
  tax: number;
  total: number;
  taxRateIds: string[];
  taxAmounts: TaxAmount[];
  period: InvoicePeriod | undefined;
  proration: boolean;
  rates: TaxRate[];
  taxBehavior: TaxBehavior | undefined;
  /** A discount line's discount (di_); null for every other line. */
  discountId: string | null;
  /** A usage line's tiers or packages (docs/decisions.md §46); null for every other line. */
  pricing: LinePricing | null;
}

type TaxRate = Awaited<ReturnType<typeof findTaxRates>>[number];

/**
 * Prices each line. A one-off invoice (no subscription) bills one-time prices only: a recurring
 * price is billed by a subscription, period by period.
 */
async function priceLines(
  db: Queryable,
  tx: AnyTx | undefined,
  accountId: string,
  lines: BillingLine[],
  oneOff: boolean,
  locked: Map<string, LockedLinePrice> = new Map(),
): Promise<PricedLine[]> {
  const priced: PricedLine[] = [];
  for (const [index, line] of lines.entries()) {
    let unitAmount = line.priceId === undefined ? line.unitAmount : 0;
    let description = line.description ?? null;
    let currency: string | null = null;
    let taxBehavior: TaxBehavior | undefined;
    const proration = line.priceId !== undefined ? line.proration : undefined;
    const usage = line.priceId !== undefined ? line.usage : undefined;
    let usagePriced: { amount: number; pricing: LinePricing | null } | undefined;
    if (line.priceId !== undefined) {
      const priceId = line.priceId;
      // FOR SHARE until commit: a concurrent DELETE /prices cannot remove a price this invoice bills (locked with
      // the draft's inputs, or here: an unknown price's 404 names its line). A preview read them all unlocked.
      const known = locked.get(priceId);
      if (!known && !tx) throw notFound('price', priceId, `lines.${index}.price`);
      const [price] = known
        ? [known.price]
        : await withParam(`lines.${index}.price`, () => findPricesForUse(tx!, accountId, [priceId]));
      if (oneOff && price!.type === 'recurring') {
        throw badRequest(
          `Price ${priceId} is recurring; bill it with a subscription (POST /subscriptions), or use a one-time price.`,
          `lines.${index}.price`,
        );
      }
      if (usage) usagePriced = usageCharge(price!, usage, `lines.${index}.quantity`);
      else assertBillablePrice(price!, `lines.${index}.price`);
      unitAmount = price!.unit_amount;
      currency = price!.currency;
      taxBehavior = price!.tax_behavior;
      if (description === null) {
        const productName = known
          ? known.productName
          : price!.description === null
            ? ((await readProductName(db, accountId, price!.product))?.name ?? null)
            : null;
        description = price!.description ?? productName;
        if (proration)
          description = prorationDescription(proration, line.quantity, description ?? priceId, line.period?.start);
        if (usage) description = usageDescription(usage, description ?? priceId, line.period);
      }
    }
    const rates = await withParam(`lines.${index}.tax`, () => findTaxRates(db, accountId, line.taxRateIds));
    const inactive = rates.find((rate) => !rate.active);
    if (inactive) throw badRequest(`Tax rate ${inactive.id} is inactive and cannot be applied.`, `lines.${index}.tax`);
    const amount = proration ? proration.amount : usagePriced ? usagePriced.amount : unitAmount * line.quantity;
    // A price's tax_behavior decides whether its rates are inside its amount (docs/api.md, Tax arithmetic).
    const tax = computeTax(amount, rates, taxBehavior);
    if (tax.total > MAX_CHARGE_AMOUNT) {
      throw badRequest(
        `Line ${index} comes to ${tax.total} cents with tax; an invoice may bill at most ${MAX_CHARGE_AMOUNT} cents.`,
        `lines.${index}.quantity`,
        'amount_too_large',
      );
    }
    priced.push({
      description,
      priceId: line.priceId ?? null,
      currency,
      quantity: line.quantity,
      unitAmount,
      amount,
      amountExcludingTax: tax.amount_excluding_tax,
      tax: tax.tax,
      total: tax.total,
      taxRateIds: rates.map((rate) => rate.id),
      taxAmounts: tax.taxes,
      period: line.period,
      proration: proration !== undefined,
      rates,
      taxBehavior,
      discountId: null,
      pricing: usagePriced?.pricing ?? null,
    });
  }
  return priced;
}

/**
 * What a usage line bills (LineUsage) under its metered price's terms. An amount past exact integers is refused
 * as any line past the charge ceiling is (400 amount_too_large: the period cannot be invoiced, docs/decisions.md
 * §7), not left to fail the activity for ever.
 */
function usageCharge(price: PriceObject, usage: LineUsage, param: string): ReturnType<typeof priceUsageLine> {
  if (!isMeteredPrice(price))
    throw new Error(`Price ${price.id} is not metered; a usage line bills metered prices only.`);
  const pricing = pricingOf(price);
  try {
    return priceUsageLine(pricing, usage.total, usage.billedBefore);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw badRequest(
      `The usage of ${usage.total} under price ${price.id} comes to more than an invoice may bill.`,
      param,
      'amount_too_large',
    );
  }
}

/** Sums each tax rate's amounts over the lines, in first-seen order. */
function totalTaxes(lines: PricedLine[]): TaxAmount[] {
  const byRate = new Map<string, TaxAmount>();
  for (const taxAmount of lines.flatMap((line) => line.taxAmounts)) {
    const sum = byRate.get(taxAmount.tax_rate);
    if (sum) {
      sum.amount += taxAmount.amount;
      sum.taxable_amount += taxAmount.taxable_amount;
    } else {
      byRate.set(taxAmount.tax_rate, { ...taxAmount });
    }
  }
  return [...byRate.values()];
}

/** "Spring sale (25% off)", "Welcome ($10.00 off)": a discount line's description. */
function discountDescription(discount: InvoiceDiscount, currency: string): string {
  const { percentOffHundredths, amountOff } = discount.terms;
  const off =
    percentOffHundredths !== null
      ? `${percentOffHundredths / 100}% off`
      : `${formatMoney(amountOff ?? 0, currency)} off`;
  return `${discount.label} (${off})`;
}

/**
 * The invoice's discount lines (docs/decisions.md §37, the arithmetic in src/coupons/discount-lines.ts),
 * none when it takes nothing off. A `once` discount is used up by the invoice that takes something off
 * (its row locked: a concurrent invoice finds it used and takes nothing).
 */
async function discountLines(
  tx: AnyTx | undefined,
  accountId: string,
  invoiceId: string,
  lines: PricedLine[],
  currency: string,
  discount: InvoiceDiscount | undefined,
): Promise<PricedLine[]> {
  if (!discount || (discount.currency !== null && discount.currency !== currency)) return [];
  const parts = discountParts(lines, discount.terms);
  if (parts.length === 0) return [];
  // A preview (no transaction) uses nothing: the discount was read unused, so the invoice made now would take it.
  if (discount.once && tx && !(await useOnceDiscount(tx, accountId, discount.id, invoiceId))) return [];
  const description = discountDescription(discount, currency);
  return parts.map((part) => ({
    description,
    priceId: null,
    currency: null,
    quantity: 1,
    unitAmount: part.amount,
    amount: part.amount,
    amountExcludingTax: part.tax.amount_excluding_tax,
    tax: part.tax.tax,
    total: part.tax.total,
    taxRateIds: part.rates.map((rate) => rate.id),
    taxAmounts: part.tax.taxes,
    period: undefined,
    proration: false,
    rates: [...part.rates] as TaxRate[],
    taxBehavior: part.taxBehavior,
    discountId: discount.id,
    pricing: null,
  }));
}

function invoiceCurrency(lines: PricedLine[], requested: string | undefined, customerCurrency: string | null): string {
  const fromPrices = lines.findIndex((line) => line.currency !== null);
  const priceCurrency = fromPrices >= 0 ? lines[fromPrices]!.currency! : null;
  const mismatch = lines.findIndex((line) => line.currency !== null && line.currency !== priceCurrency);
  if (mismatch >= 0)
    throw badRequest(`All prices on an invoice must share one currency (${priceCurrency}).`, `lines.${mismatch}.price`);
  if (requested && priceCurrency && requested !== priceCurrency) {
    throw badRequest(`currency ${requested} differs from the prices' currency ${priceCurrency}.`, 'currency');
  }
  return requested ?? priceCurrency ?? customerCurrency ?? 'USD';
}

function snapshotCustomer(customer: {
  name: string;
  email: string | null;
  phone: string | null;
  address: Prisma.JsonValue;
}) {
  const addresses = Array.isArray(customer.address) ? customer.address : [];
  return {
    customerName: customer.name,
    customerEmail: customer.email,
    customerPhone: customer.phone,
    customerAddress: (addresses[0] as Prisma.InputJsonValue | undefined) ?? undefined,
  };
}

/** The seller as an invoice shows it (docs/api.md, "Business details"): its legal name, else the account's name. */
function snapshotSeller(seller: AccountSeller) {
  const address = seller.businessAddress as { country?: string } | null;
  return {
    accountName: seller.legalName ?? seller.name,
    accountCountry: address?.country ?? null,
    accountAddress: (seller.businessAddress ?? null) as Prisma.InputJsonValue | null,
    accountEmail: seller.supportEmail,
    accountPhone: seller.supportPhone,
    accountTaxId: seller.taxId,
  };
}

/** The invoice made under `idempotencyKey`: looked up by a prepared statement (almost always a miss), read when found. */
async function existingByKey(db: Db, accountId: string, idempotencyKey: string): Promise<InvoiceWithLines | null> {
  const id = await findInvoiceIdByKey(db, accountId, idempotencyKey);
  return id === undefined ? null : findInvoice(db, accountId, id);
}

/**
 * POST /invoices: a draft invoice from a request body (parsed here; `opts` for callers that bill a
 * subscription's period the old way), made by createKeyedInvoice.
 */
/**
 * A change of an invoice (or of what credits it): at its customer's test clock time when the customer is
 * on one, so that its dates, events and charges are the clock's, as those its subscriptions make; 409
 * while the clock advances. An id the account does not have runs on the wall clock (and answers 404).
 */
export async function onInvoiceTime<T>(
  prisma: Db,
  accountId: string,
  invoiceId: string,
  work: () => Promise<T>,
): Promise<T> {
  const customerId = await findInvoiceCustomerId(prisma, accountId, invoiceId);
  return customerId ? onCustomerTime(prisma, accountId, customerId, work) : work();
}

export async function createInvoice(
  prisma: Db,
  accountId: string,
  rawInput: CreateInvoiceInput,
  opts: CreateInvoiceOptions = {},
): Promise<InvoiceObject> {
  return createKeyedInvoice(prisma, accountId, billingInputOf(parsedInvoiceInput(rawInput, opts), opts));
}

/**
 * A draft invoice in a transaction of its own: a second call with the input's idempotency key
 * answers the invoice the first made (a concurrent one included: the unique index decides).
 */
export async function createKeyedInvoice(
  prisma: Db,
  accountId: string,
  input: BillingInvoiceInput,
): Promise<InvoiceObject> {
  const key = input.idempotencyKey;
  if (key) {
    const existing = await existingByKey(prisma, accountId, key);
    if (existing) return toInvoiceObject(existing);
  }
  try {
    return await sqlTransaction(prisma, (tx) => insertInvoice(tx, accountId, input));
  } catch (error) {
    // A concurrent call with the same key won the unique index: answer its invoice.
    const existing = key ? await existingByKey(prisma, accountId, key) : null;
    if (existing) return toInvoiceObject(existing);
    throw error;
  }
}

/**
 * The invoice module's entry point for billing code (a subscription's period): a draft invoice
 * (invoice.created) from typed lines in the caller's transaction, which owns the idempotency key's
 * check. Line totals come from the catalog's tax function (a price line's tax_behavior decides, an
 * amount line's rates their own inclusive flag); invoice totals are their sums. A 4xx ApiError naming
 * `lines.N.price`, `lines.N.tax` or `customer` when the lines cannot be billed.
 */
export function createInvoiceForBilling(
  tx: AnyTx,
  accountId: string,
  input: BillingInvoiceInput,
): Promise<InvoiceObject> {
  return insertInvoice(tx, accountId, input);
}

/**
 * createInvoiceForBilling, unless the input's key made an invoice already (a retried step whose transaction
 * committed): the check is in the caller's transaction, for callers that serialise their retries themselves.
 */
export async function findOrCreateInvoiceForBilling(
  tx: AnyTx,
  accountId: string,
  input: () => Promise<BillingInvoiceInput>,
  idempotencyKey: string,
): Promise<{ id: string; total: number }> {
  return (await findInvoiceMadeByKey(tx, accountId, idempotencyKey)) ?? insertInvoice(tx, accountId, await input());
}

/**
 * The draft `invoice` as finalization will leave it with the customer's balance as it is now (finalizeInTx,
 * docs/decisions.md §22 and §25): its credit in the invoice's currency lowers what is due, and a total
 * below zero goes to a balance that can take it (a negative applied_balance).
 */
function withBalanceAsFinalized(
  invoice: InvoiceObject,
  customer: { balance: bigint; balanceCurrency: string | null; deletedAt: Date | null },
): InvoiceObject {
  const sameCurrency = customer.balanceCurrency === invoice.currency;
  const credit = -Number(customer.balance);
  const applied = credit > 0 && sameCurrency ? Math.min(credit, invoice.amount_due) : 0;
  const takesCredit = !customer.deletedAt && (credit === 0 || sameCurrency);
  const appliedBalance = invoice.total < 0 && takesCredit ? invoice.total : applied;
  return {
    ...invoice,
    applied_balance: appliedBalance,
    amount_due: invoice.amount_due - applied,
    amount_remaining: invoice.amount_remaining - applied,
  };
}

/**
 * The invoice createInvoiceForBilling would make for `input`, drafted by the same code (draftInvoice: lines,
 * totals, tax, discounts) and answered as its insert would answer it without being written
 * (unwrittenInvoiceWithLines): nothing is written, no event is sent, and nothing is locked (the upcoming-invoice
 * preview). Its reads run on the pool outside any transaction (PreviewReads): a preview holds no lock that real
 * billing of the customer would wait on, and the customer's balance is the one the draft read
 * (docs/decisions.md §25; docs/performance.md, "The upcoming invoice without its transaction").
 */
export async function previewInvoiceForBilling(
  prisma: Db,
  accountId: string,
  input: BillingInvoiceInput,
): Promise<InvoiceObject> {
  const draft = await draftInvoice(new PreviewReads(prisma), accountId, { ...input, idempotencyKey: undefined });
  const invoice = toInvoiceObject(unwrittenInvoiceWithLines(draft.invoice, draft.lines));
  return withBalanceAsFinalized(invoice, draft.customer);
}

function parsedInvoiceInput(rawInput: CreateInvoiceInput, opts: CreateInvoiceOptions): ParsedInvoiceInput {
  const input = parseOrThrow(createInvoiceBody, rawInput, 'body');
  // Subscription renewals may be invoiced late (a worker was down); a merchant's own invoice may not be due in the
  // past (its customer's test clock's past when it has one).
  if (
    !opts.subscriptionId &&
    input.due_date !== undefined &&
    input.due_date < Math.floor(currentTime().getTime() / 1000)
  ) {
    throw badRequest('due_date must not be in the past.', 'due_date');
  }
  return input;
}

type ParsedInvoiceInput = z.output<typeof createInvoiceBody>;

/** A request body, parsed, as billing code would give it. */
function billingInputOf(input: ParsedInvoiceInput, opts: CreateInvoiceOptions): BillingInvoiceInput {
  return {
    customerId: input.customer,
    currency: input.currency,
    collectionMethod: input.collection_method,
    dueDate: input.due_date,
    lines: input.lines.map((line): BillingLine => {
      const taxRateIds = line.tax ?? [];
      return line.price !== undefined
        ? { priceId: line.price, description: line.description, quantity: line.quantity, taxRateIds }
        : { description: line.description!, unitAmount: line.amount ?? 0, quantity: line.quantity, taxRateIds };
    }),
    subscriptionId: opts.subscriptionId,
    billingReason: opts.billingReason,
    period:
      opts.periodStart !== undefined ? { start: opts.periodStart, end: opts.periodEnd ?? opts.periodStart } : undefined,
    idempotencyKey: opts.idempotencyKey,
  };
}

async function insertInvoice(tx: AnyTx, accountId: string, input: BillingInvoiceInput): Promise<InvoiceObject> {
  return toInvoiceObject(await writeDraftInvoice(tx, await draftInvoice(tx, accountId, input)));
}

/** An invoice as it is to be written, with the customer (locked) and the seller it was made from. */
export interface DraftInvoice {
  invoice: NewInvoice;
  lines: NewInvoiceLine[];
  customer: Customer;
  seller: AccountSeller;
  /** The method asked for (draftInvoice's `method`) as found, not yet checked usable; undefined when not asked for. */
  method?: PaymentMethod | null;
}

/**
 * Where a preview's draft reads (previewInvoiceForBilling): `db` outside any transaction, each statement on its own,
 * taking no lock and writing nothing. Every other draft is made in its billing transaction.
 */
export class PreviewReads {
  constructor(readonly db: Queryable) {}
}

/**
 * The draft insertInvoice writes, made from `input` (its customer locked, its lines priced), not written yet.
 * `method`: the payment method its first attempt would charge is read with it (`id`'s, or the customer's default
 * when null). On PreviewReads (a preview): the same reads and the same arithmetic, without the locks and without
 * using up a `once` discount.
 */
export async function draftInvoice(
  on: AnyTx | PreviewReads,
  accountId: string,
  input: BillingInvoiceInput,
  method?: { id: string | null },
): Promise<DraftInvoice> {
  // The transaction the draft locks in (none for a preview), and what its reads run on.
  const tx = on instanceof PreviewReads ? undefined : on;
  const db = on instanceof PreviewReads ? on.db : on;
  // Locked until commit, so a concurrent DELETE /customers/{id} waits for this draft and voids it, or
  // comes first and this answers 404 (decisions.md §4). The customer, the seller, the lines' prices (locked) with
  // their products' names and the method in one statement; a customer not live is answered by its own read (404),
  // a preview's by this one.
  const priceIds = [...new Set(input.lines.flatMap((line) => (line.priceId === undefined ? [] : [line.priceId])))];
  const inputs = await readDraftInputs(db, tx, accountId, input.customerId, priceIds, {
    method,
    discountOfPeriod: input.discountOfPeriod,
  });
  if (!inputs && !tx) throw notFound('customer', input.customerId, 'customer');
  const discount = input.discountOfPeriod ? (inputs?.discount ?? undefined) : input.discount;
  const customer =
    inputs?.customer ?? (await withParam('customer', () => lockCustomer(tx!, accountId, input.customerId, 'share')));
  const seller = inputs ? inputs.seller : await readAccountSellerInTx(tx!, accountId);
  if (!seller) throw new Error(`Account ${accountId} not found.`);
  const priced = await priceLines(db, tx, accountId, input.lines, !input.subscriptionId, inputs?.prices);
  const currency = invoiceCurrency(priced, input.currency, customer.currency);
  const id = input.id ?? newUuid();
  const lines = [...priced, ...(await discountLines(tx, accountId, id, priced, currency, discount))];
  const now = currentTime();
  const periodStart = input.period ? fromUnixSeconds(input.period.start) : now;
  const periodEnd = input.period ? fromUnixSeconds(input.period.end) : periodStart;
  const sum = (pick: (line: PricedLine) => number) => lines.reduce((total, line) => total + pick(line), 0);
  // The subtotal is before discount, as Stripe's; the discount lines count in the total (docs/decisions.md §37).
  const sumPriced = (pick: (line: PricedLine) => number) => priced.reduce((total, line) => total + pick(line), 0);
  const subtotal = sumPriced((line) => line.amount);
  const tax = sum((line) => line.tax);
  const total = sum((line) => line.total);
  // Only a subscription's credits (proration, carried credit) take a total below zero: nothing is due,
  // and the subscription carries the rest to its next invoice (docs/decisions.md §25).
  const amountDue = Math.max(0, total);
  if (total > MAX_CHARGE_AMOUNT) {
    throw badRequest(
      `The invoice comes to ${total} cents; an invoice may bill at most ${MAX_CHARGE_AMOUNT} cents.`,
      'lines',
      'amount_too_large',
    );
  }
  return {
    customer,
    seller,
    ...(inputs && 'method' in inputs ? { method: inputs.method } : {}),
    invoice: {
      id,
      accountId,
      customerId: customer.id,
      subscriptionId: input.subscriptionId ?? null,
      status: 'draft',
      collectionMethod: input.collectionMethod,
      billingReason: input.billingReason ?? 'manual',
      currency,
      dueDate: input.dueDate !== undefined ? fromUnixSeconds(input.dueDate) : null,
      periodStart,
      periodEnd,
      subtotal: BigInt(subtotal),
      subtotalExcludingTax: BigInt(sumPriced((line) => line.amountExcludingTax)),
      tax: BigInt(tax),
      total: BigInt(total),
      totalExcludingTax: BigInt(total - tax),
      totalTaxes: totalTaxes(lines) as unknown as Prisma.InputJsonValue,
      amountDue: BigInt(amountDue),
      ...snapshotSeller(seller),
      ...snapshotCustomer(customer),
      idempotencyKey: input.idempotencyKey ?? null,
      createdAt: now,
    },
    lines: lines.map((line, position) => ({
      id: newId('invoiceLine'),
      accountId,
      position,
      description: line.description,
      priceId: line.priceId,
      quantity: line.quantity,
      unitAmount: BigInt(line.unitAmount),
      amount: BigInt(line.amount),
      amountExcludingTax: BigInt(line.amountExcludingTax),
      taxRateIds: line.taxRateIds,
      taxAmounts: line.taxAmounts as unknown as Prisma.InputJsonValue,
      periodStart: line.period ? fromUnixSeconds(line.period.start) : periodStart,
      periodEnd: line.period ? fromUnixSeconds(line.period.end) : periodEnd,
      proration: line.proration,
      discountId: line.discountId,
      pricing: line.pricing as Prisma.InputJsonValue | null,
    })),
  };
}

/** The draft written (invoice.created). */
export async function writeDraftInvoice(tx: AnyTx, draft: DraftInvoice): Promise<InvoiceWithLines> {
  const invoice = await insertInvoiceWithLines(tx, draft.invoice, draft.lines);
  await recordEvent(tx, invoice.accountId, 'invoice.created', toInvoiceObject(invoice));
  return invoice;
}

/**
 * Whether finalizeInTx would leave `draft` open with its whole amount to collect: no credit balance to apply,
 * no total below zero to credit, something due. Such a draft can be written finalized at once (writeFinalizedInvoice).
 */
export function finalizesUntouched(draft: DraftInvoice): boolean {
  return draft.customer.balance >= 0n && draft.invoice.total >= 0n && draft.invoice.amountDue > 0n;
}

/**
 * A draft finalizesUntouched accepts, written once as insertInvoice, finalizeInTx and `attemptCount` attempts
 * counted would leave it (docs/performance.md, "Eighteenth round"): numbered, open, its hosted link made, its
 * customer and seller as the draft read them (the customer locked since, the seller read once per transaction),
 * with invoice.created and invoice.finalized as those steps record them. The events' `updated_ms` are the row's
 * less two and less one: each version of the object still has its own, in order, below the row's.
 */
export async function writeFinalizedInvoice(
  tx: AnyTx,
  draft: DraftInvoice,
  attemptCount: number,
): Promise<InvoiceWithLines> {
  const { invoice: fields, lines } = draft;
  const link = newHostedLink(fields.id);
  // Numbered by the insert itself: the account's counter is locked from there to the commit.
  const written = await insertFinalizedInvoiceWithLines(
    tx,
    { ...fields, status: 'open', finalizedAt: currentTime(), attemptCount },
    lines,
    link,
  );
  const version = (status: Invoice['status'], back: bigint, finalized: boolean) =>
    toInvoiceObject({
      ...written,
      status,
      updatedMs: written.updatedMs - back,
      attemptCount: 0,
      ...(finalized ? {} : { number: null, finalizedAt: null, hostedLink: null }),
    });
  await recordEvents(tx, fields.accountId, [
    { type: 'invoice.created', object: version('draft', 2n, false) },
    { type: 'invoice.finalized', object: version('open', 1n, true) },
  ]);
  return written;
}

/**
 * The invoice paid (invoice.payment_succeeded), `amount` cents more collected, under its lock: every way an
 * invoice ends paid by a payment (a charge, or nothing left to collect) goes through here.
 */
export async function markPaid(
  tx: AnyTx,
  accountId: string,
  invoice: InvoiceWithLines & { unbilledPriceIds?: string[] },
  amount: bigint,
  paymentMethodId: string | null,
): Promise<InvoiceWithLines> {
  const paid = await updateLockedInvoice(tx, invoice, {
    status: 'paid',
    amountPaid: invoice.amountPaid + amount,
    paidAt: currentTime(),
    paymentMethodId,
  });
  await recordEvent(tx, accountId, 'invoice.payment_succeeded', toInvoiceObject(paid));
  invoiceSettled(paid);
  // Billing a price activates it for good (spec: price activity), in the transaction that marks it paid.
  const priceIds = paid.lines.flatMap((line) => (line.priceId ? [line.priceId] : []));
  // A lock for the payment (lockInvoiceForPayment) read which of them were not billed yet.
  if (priceIds.length > 0) await markPricesBilled(tx, accountId, priceIds, invoice.unbilledPriceIds);
  return paid;
}

/** An open invoice with nothing left to collect, paid without a charge: a zero payment transaction as its trace. */
export async function paidWithNothingDue(
  tx: AnyTx,
  invoice: InvoiceWithLines,
  attemptKey: string | null,
  origin: ChargeOrigin | null = null,
): Promise<InvoiceWithLines> {
  await recordNothingDue(tx, {
    accountId: invoice.accountId,
    currency: invoice.currency,
    customerId: invoice.customerId,
    invoiceId: invoice.id,
    attemptKey,
    description: `Invoice ${invoice.number} (nothing due)`,
    origin,
  });
  return markPaid(tx, invoice.accountId, invoice, 0n, null);
}

/**
 * draft -> open inside the caller's transaction (the invoice already locked): number, finalized_at,
 * a fresh customer snapshot, invoice.finalized. A send_invoice invoice's `invoice.sent` comes later, once
 * the SMTP server took its email (src/emails/email.service.ts, docs/decisions.md §30).
 *
 * An invoice left with nothing to collect (the customer's balance paid it all, a total of zero or below
 * zero) is paid here, whoever finalizes it (docs/decisions.md §22): a zero payment transaction, under
 * `attemptKey` when a payment attempt finalizes it, and invoice.payment_succeeded.
 */
export async function finalizeInTx(
  tx: AnyTx,
  accountId: string,
  invoice: InvoiceWithLines,
  { attemptKey = null }: { attemptKey?: string | null } = {},
): Promise<InvoiceWithLines> {
  const customer = await readCustomerEvenDeleted(tx, accountId, invoice.customerId);
  // A deleted customer owes nothing new (decisions.md §4). Its deletion voids its drafts under each
  // draft's lock, which the caller holds: a draft still here was made before that rule held.
  if (customer?.deletedAt) {
    throw conflict(
      `Invoice ${invoice.id} is for customer ${invoice.customerId}, which was deleted; it cannot be finalized (void it).`,
      'customer_deleted',
    );
  }
  const number = await allocateInvoiceNumber(tx, accountId);
  // What the invoice is issued under is what the account says now, kept from then on (docs/api.md, "Business details").
  const seller = await readAccountSellerInTx(tx, accountId);
  // The customer's credit pays first, before any card (docs/decisions.md §22). The snapshot just read
  // says whether there is any, so an invoice of a customer without credit costs no further statement.
  const applied =
    customer && customer.balance < 0n
      ? await applyBalanceToInvoice(tx, { ...invoice, number }, invoice.amountDue - invoice.amountPaid)
      : 0n;
  // A total below zero (a subscription's credits past its charges) goes to the customer's balance,
  // recorded as a negative applied_balance (docs/decisions.md §25, "Totals below zero").
  const credited = invoice.total < 0n ? await creditBalanceFromInvoice(tx, { ...invoice, number }, -invoice.total) : 0n;
  const updated = await updateLockedInvoice(tx, invoice, {
    status: 'open',
    number,
    finalizedAt: currentTime(),
    ...(applied > 0n ? { appliedBalance: applied, amountDue: invoice.amountDue - applied } : {}),
    ...(credited > 0n ? { appliedBalance: -credited } : {}),
    ...(customer ? snapshotCustomer(customer) : {}),
    ...(seller ? snapshotSeller(seller) : {}),
  });
  // Every finalized invoice has its hosted page (docs/decisions.md §29), named in invoice.finalized already.
  const finalized = { ...updated, hostedLink: await createHostedInvoiceLink(tx, accountId, invoice.id) };
  const object = toInvoiceObject(finalized);
  if (applied > 0n || credited > 0n) await recordCustomerUpdated(tx, accountId, invoice.customerId);
  await recordEvent(tx, accountId, 'invoice.finalized', object);
  return finalized.amountDue - finalized.amountPaid > 0n ? finalized : paidWithNothingDue(tx, finalized, attemptKey);
}

/** 409 for an invoice that takes no payment; callers that must tell paid from void read `invoiceStatus`. */
export class InvoiceNotPayableError extends ApiError {
  constructor(
    invoiceId: string,
    readonly invoiceStatus: 'paid' | 'void',
  ) {
    super(
      'conflict',
      invoiceStatus === 'paid' ? 'invoice_already_paid' : 'invoice_void',
      invoiceStatus === 'paid'
        ? `Invoice ${invoiceId} is already paid.`
        : `Invoice ${invoiceId} is void and cannot be paid.`,
    );
  }
}

export function assertPayable(invoice: InvoiceWithLines): void {
  if (invoice.status === 'void' || invoice.status === 'paid')
    throw new InvoiceNotPayableError(invoice.id, invoice.status);
}

/**
 * POST /invoices/{id}/finalize: draft -> open (paid when nothing is left to collect), 409 otherwise. With `allowFinalized` (for workflow
 * activities that may run twice) an open or paid invoice is answered as it is.
 */
export async function finalizeInvoice(
  prisma: Db,
  accountId: string,
  id: string,
  opts: { allowFinalized?: boolean } = {},
): Promise<InvoiceObject> {
  return prisma.$transaction(async (tx) => {
    const invoice = await lockInvoice(tx, accountId, id);
    if (invoice.status === 'draft') return toInvoiceObject(await finalizeInTx(tx, accountId, invoice));
    if (opts.allowFinalized && invoice.status !== 'void') return toInvoiceObject(invoice);
    throw conflict(`Invoice ${id} is ${invoice.status}; only a draft invoice can be finalized.`, 'invoice_not_draft');
  });
}

/** DELETE /invoices/{id}: a draft or open invoice becomes void for good (invoice.deleted). */
export async function voidInvoice(prisma: Db, accountId: string, id: string): Promise<InvoiceObject> {
  return prisma.$transaction(async (tx) => voidInTx(tx, accountId, id));
}

/**
 * Voids a draft or open invoice inside the caller's transaction (the invoice is locked here). With
 * `onlyDraft`, an invoice no longer a draft (finalized since the caller read it) is refused with that error.
 */
export async function voidInTx(
  tx: Tx,
  accountId: string,
  id: string,
  opts: { onlyDraft?: ApiError } = {},
): Promise<InvoiceObject> {
  const invoice = await lockInvoice(tx, accountId, id);
  if (opts.onlyDraft && invoice.status === 'open') throw opts.onlyDraft;
  if (invoice.status === 'void') throw conflict(`Invoice ${id} is already void.`, 'invoice_void');
  if (invoice.status === 'paid')
    throw conflict(`Invoice ${id} is paid and cannot be voided; refund it instead.`, 'invoice_already_paid');
  const inFlight = await countPendingEntries(tx, accountId, id, 'payment');
  if (inFlight > 0)
    throw conflict(`A payment of invoice ${id} is in progress; try again when it has settled.`, 'payment_in_progress');
  // Credit the invoice took from the customer's balance goes back to it (docs/decisions.md §22); credit
  // it gave the balance (a total below zero, §25) is taken back, refused (409) once it is used.
  if (invoice.appliedBalance !== 0n) {
    await recordBalanceEntry(tx, {
      accountId,
      customerId: invoice.customerId,
      type: 'unapplied_from_invoice',
      amount: -invoice.appliedBalance,
      currency: invoice.currency,
      invoiceId: invoice.id,
      description: `Invoice ${invoice.number ?? invoice.id} voided`,
    });
    await recordCustomerUpdated(tx, accountId, invoice.customerId);
  }
  const voided = await updateLockedInvoice(tx, invoice, { status: 'void', voidedAt: currentTime() });
  const object = toInvoiceObject(voided);
  await recordEvent(tx, accountId, 'invoice.deleted', object);
  // A draft is in no dunning: its renewal finds it void.
  if (invoice.status === 'open') invoiceSettled(voided);
  return object;
}

/** The account's invoice numbered `number` (INV-000012), or null. */
export async function getInvoiceByNumber(prisma: Db, accountId: string, number: string): Promise<InvoiceObject | null> {
  const invoice = await findInvoiceByNumber(prisma, accountId, number);
  return invoice ? toInvoiceObject(invoice) : null;
}

export async function getInvoice(prisma: Db | Tx, accountId: string, id: string): Promise<InvoiceObject> {
  return toInvoiceObject(await findInvoice(prisma, accountId, id));
}
