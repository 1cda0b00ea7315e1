import type { Db } from '../db/prisma';
import { computeTax, type TaxBehavior, type TaxRateForCalc } from '../catalog';
import { TAX_BEHAVIORS } from '../catalog';
import { columnValue } from '../lib/columns';
import { toTaxRateObject } from '../catalog';
import { readActiveTaxRates, readPriceAmounts } from '../catalog';
import { ApiError, badRequest, isRefusal } from '../http/errors';
import { previewInvoiceForBilling } from '../invoices';
import { periodInvoice, type RenewalInvoiceInput } from './period-billing';
import { MAX_CHARGE_AMOUNT } from '../lib/money';
import type { SubscriptionItemState } from './subscription-machine';

/** One item as a period's invoice line will bill it: its price's unit amount, quantity and active tax rates. */
export interface BilledItem {
  unitAmount: number;
  quantity: number;
  rates: TaxRateForCalc[];
  /** The price's tax_behavior, which decides how the rates apply (computeTax). */
  taxBehavior: TaxBehavior;
  /** The request field the item came from (`items.N`), or null for an item the request left as it was. */
  param: string | null;
}

/**
 * What one period would charge: the sum of the lines' totals, exclusive tax on top, as the renewal
 * invoice computes them, may not pass MAX_CHARGE_AMOUNT (decisions.md §6). Refused with 400 naming
 * `items.N.quantity` when that item alone passes it, else `items`.
 */
export function assertPeriodWithinCeiling(items: BilledItem[]): void {
  const lineTotal = (item: BilledItem) =>
    computeTax(item.unitAmount * item.quantity, item.rates, item.taxBehavior).total;
  const total = items.reduce((sum, item) => sum + lineTotal(item), 0);
  if (total <= MAX_CHARGE_AMOUNT) return;
  const alone = items.find((item) => item.param !== null && lineTotal(item) > MAX_CHARGE_AMOUNT);
  throw badRequest(
    `The subscription would charge ${total} cents per period (tax included); at most ${MAX_CHARGE_AMOUNT} may be charged at once.`,
    alone ? `${alone.param}.quantity` : 'items',
    'amount_too_large',
  );
}

/** A change refused because the next invoice, with the proration lines waiting for it, would pass the ceiling. */
export function prorationsPastCeiling(invoiceRefusal: string): ApiError {
  return badRequest(
    `With its prorations the subscription's next invoice would pass the charge ceiling: ${invoiceRefusal}`,
    'items',
    'amount_too_large',
  );
}

/**
 * The period's invoice as the renewal will make it (its items and the proration lines waiting, made by
 * the billing code, written nowhere and locking nothing) within MAX_CHARGE_AMOUNT: the workflow asks it under its
 * lock of a change that leaves lines waiting, so that changes decided one after another, however they
 * arrived, never leave a renewal the invoice would refuse. Anything else the invoice would refuse is the
 * renewal's to report (docs/decisions.md §7), not this change's.
 */
export async function assertPeriodInvoiceWithinCeiling(db: Db, period: RenewalInvoiceInput): Promise<void> {
  try {
    await previewInvoiceForBilling(db, period.accountId, await periodInvoice(db, period, { discountWithDraft: true }));
  } catch (error) {
    if (error instanceof ApiError && error.code === 'amount_too_large') throw prorationsPastCeiling(error.message);
    if (!isRefusal(error)) throw error;
  }
}

/** An item of a subscription with the request field that last changed it, if any. */
export type ItemWithParam = Pick<SubscriptionItemState, 'priceId' | 'quantity' | 'taxRateIds'> & {
  param: string | null;
};

/**
 * assertPeriodWithinCeiling for items as a subscription holds them (price and tax rate ids), priced
 * from the database. Renewals drop a rate deactivated since it was set: so does this sum. The API
 * checks a change against the row before sending it; the workflow checks it again against its own
 * state under its lock, where concurrent changes have been applied one after another.
 */
export async function assertItemsWithinCeiling(db: Db, accountId: string, items: ItemWithParam[]): Promise<void> {
  const [prices, rates] = await Promise.all([
    readPriceAmounts(
      db,
      accountId,
      items.map((item) => item.priceId),
    ),
    readActiveTaxRates(
      db,
      accountId,
      items.flatMap((item) => item.taxRateIds),
    ),
  ]);
  const unitAmounts = new Map(prices.map((price) => [price.id, Number(price.unitAmount)]));
  const taxBehaviors = new Map(
    prices.map((price) => [price.id, columnValue(TAX_BEHAVIORS, price.taxBehavior, 'prices.tax_behavior')]),
  );
  const ratesById = new Map(rates.map((rate) => [rate.id, toTaxRateObject(rate)]));
  assertPeriodWithinCeiling(
    items.map((item) => ({
      unitAmount: unitAmounts.get(item.priceId) ?? 0,
      quantity: item.quantity,
      rates: item.taxRateIds.flatMap((id) => ratesById.get(id) ?? []),
      taxBehavior: taxBehaviors.get(item.priceId) ?? 'exclusive',
      param: item.param,
    })),
  );
}
