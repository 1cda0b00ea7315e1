import type { Prisma, Price } from '../generated/prisma/client';
import { assertActiveMeter } from '../usage';
import type { Pricing } from '../usage';
import { currentTime } from '../lib/clock-time';
import type { Db, Tx } from '../db/prisma';
import type { AnyTx } from '../db/sql';
import { badRequest, conflict, orNotFound } from '../http/errors';
import { pageEnvelope, pageWindow, type Page } from '../http/pagination';
import { recordEvent } from '../lib/events';
import { newId } from '../lib/ids';
import type {
  CreatePriceInput,
  ListPricesQuery,
  PriceObject,
  RecurringInput,
  UpdateActivePriceInput,
  UpdateInactivePriceInput,
} from './price.schemas';
import {
  clearDefaultPrice,
  deletePriceRow,
  findPriceRow,
  insertPriceRow,
  lockPrice,
  lockProduct,
  pricesBilledAt,
  readPricePage,
  setPriceBilled,
  subscriptionItemCount,
  unpaidInvoiceLineCount,
  toPriceObject,
  toProductObject,
  updatePriceRow,
  withProductNames,
} from './records';
import { createdWhere } from './search-filter';
import { containsText } from '../db/text-search';

/** What a price is made of: a product's default price gives the first five; POST /prices/{product} all. */
type PriceAttributes = Pick<CreatePriceInput, 'currency' | 'type' | 'tax_behavior'> &
  Partial<Pick<CreatePriceInput, 'billing_scheme' | 'tiers_mode' | 'tiers' | 'transform_quantity'>> & {
    unit_amount?: number;
    recurring?: (RecurringInput & { usage_type?: 'licensed' | 'metered'; meter?: string }) | null;
    description?: string | null;
  };

/** The pricing columns of a new price: tiers stored in the answer's shape ("inf" as null), amounts absent as null. */
function pricingColumns(input: PriceAttributes) {
  const recurring = input.type === 'recurring' ? input.recurring : null;
  return {
    unitAmount: input.unit_amount ?? 0,
    billingScheme: input.billing_scheme ?? 'per_unit',
    tiersMode: input.tiers_mode ?? null,
    tiers: input.tiers?.map((tier) => ({
      up_to: tier.up_to === 'inf' ? null : tier.up_to,
      unit_amount: tier.unit_amount ?? null,
      flat_amount: tier.flat_amount ?? null,
    })),
    usageType: recurring?.usage_type ?? 'licensed',
    meterId: recurring?.meter ?? null,
    transformDivideBy: input.transform_quantity?.divide_by ?? null,
    transformRound: input.transform_quantity?.round ?? null,
  };
}

/**
 * A price that the per-unit billing of subscriptions, invoices and checkouts can bill: not tiered, not
 * metered, not in packages. The others wait for billing in arrears (docs/decisions.md §42): billed as
 * unit_amount x quantity they would be billed wrong. 400 `price_not_billable` naming `param`.
 */
export function assertBillablePrice(price: PriceObject, param: string): void {
  if (price.billing_scheme === 'per_unit' && price.recurring?.usage_type !== 'metered' && !price.transform_quantity)
    return;
  throw badRequest(
    isMeteredPrice(price)
      ? `Price ${price.id} is metered; its usage is billed by a subscription at each period's end, not on invoices or checkouts.`
      : `Price ${price.id} is tiered or in packages; only a metered price bills such terms (on a subscription).`,
    param,
    'price_not_billable',
  );
}

/** Whether a price bills a meter's usage in arrears (docs/decisions.md §43) rather than a stated quantity. */
export function isMeteredPrice(price: PriceObject): boolean {
  return price.recurring?.usage_type === 'metered';
}

/**
 * A price a subscription item can bill: licensed per-unit prices (unit_amount x quantity, in advance), and metered
 * prices in any scheme (per unit, tiered, packages), whose usage the period's end bills in arrears through
 * priceQuantity (docs/decisions.md §43). A licensed tiered or package price stays refused: 400 `price_not_billable`.
 */
export function assertSubscribablePrice(price: PriceObject, param: string): void {
  if (!isMeteredPrice(price)) assertBillablePrice(price, param);
}

/** A price's terms as priceQuantity reads them (docs/decisions.md §42, "Tier arithmetic"). */
export function pricingOf(price: PriceObject): Pricing {
  if (price.billing_scheme === 'tiered')
    return {
      scheme: 'tiered',
      mode: price.tiers_mode ?? 'graduated',
      tiers: (price.tiers ?? []).map((tier) => ({
        upTo: tier.up_to,
        unitAmount: tier.unit_amount ?? 0,
        flatAmount: tier.flat_amount ?? 0,
      })),
    };
  const transform = price.transform_quantity;
  return {
    scheme: 'per_unit',
    unitAmount: price.unit_amount,
    transform: transform ? { divideBy: transform.divide_by, round: transform.round } : null,
  };
}

function recurringColumns(recurring: RecurringInput | null | undefined) {
  return { recurringInterval: recurring?.interval ?? null, recurringIntervalCount: recurring?.interval_count ?? null };
}

/** Inserts a price row; the caller holds the product (locked or just created) and writes the event. */
export async function insertPrice(
  tx: Tx,
  accountId: string,
  productId: string,
  input: PriceAttributes,
  id = newId('price'),
  createdAt = currentTime(),
): Promise<Price> {
  return insertPriceRow(tx, {
    id,
    accountId,
    productId,
    currency: input.currency,
    type: input.type,
    ...pricingColumns(input),
    ...recurringColumns(input.type === 'recurring' ? input.recurring : null),
    taxBehavior: input.tax_behavior,
    description: input.description ?? null,
    createdAt,
  });
}

/** The price locked in `mode` (records' lockPrice), or 404 (also for another account's price). */
async function lockKnownPrice(tx: AnyTx, accountId: string, id: string, mode: 'update' | 'share'): Promise<Price> {
  return orNotFound(await lockPrice(tx, accountId, id, mode), 'price', id);
}

/** A price of the account as the API shows it, or 404 (also for another account's price). */
export async function findPrice(db: Db | Tx, accountId: string, id: string): Promise<PriceObject> {
  return toPriceObject(orNotFound(await findPriceRow(db, accountId, id), 'price', id));
}

/**
 * Prices about to be attached to something (a subscription item, an invoice line), in the order
 * given, locked FOR SHARE until the caller's transaction ends so that a concurrent DELETE /prices
 * cannot remove them between the check and the insert. 404 names the first unknown id.
 */
export async function findPricesForUse(tx: AnyTx, accountId: string, ids: string[]): Promise<PriceObject[]> {
  const prices: PriceObject[] = [];
  for (const id of ids) prices.push(toPriceObject(await lockKnownPrice(tx, accountId, id, 'share')));
  return prices;
}

/**
 * The one way a price becomes billed, and therefore active, for good. Call it in the invoicing
 * transaction that bills the prices. Prices already billed are left alone; each price that changes
 * gets a `price.updated` event. Unknown ids (or another account's) are a 404. Returns the ids changed.
 * `unbilled`: which of `priceIds` the caller read not billed (or not found) earlier in this transaction,
 * without a lock as below; the others were billed then and stay so (billed_at is never cleared).
 */
export async function markPricesBilled(
  tx: AnyTx,
  accountId: string,
  priceIds: string[],
  unbilled?: string[],
): Promise<string[]> {
  const changed: string[] = [];
  const ids = [...new Set(priceIds)];
  // Most payments bill prices billed long ago: those are read, not locked, so concurrent payments of
  // one price do not queue on its row. A price not found is locked below, which answers the 404.
  const toBill = unbilled ? new Set(unbilled) : await notBilled(tx, accountId, ids);
  // Sorted so that two invoices billing the same prices lock them in the same order (no deadlock).
  for (const id of ids.filter((candidate) => toBill.has(candidate)).sort()) {
    const price = await lockKnownPrice(tx, accountId, id, 'update');
    if (price.billedAt) continue;
    const billed = orNotFound(await setPriceBilled(tx, accountId, price.id, currentTime()), 'price', id);
    await recordEvent(tx, accountId, 'price.updated', toPriceObject(billed));
    changed.push(id);
  }
  return changed;
}

/** The ids of `ids` not billed (or not found), read without a lock. */
async function notBilled(tx: AnyTx, accountId: string, ids: string[]): Promise<Set<string>> {
  const billed = new Set(
    (await pricesBilledAt(tx, accountId, ids)).filter((price) => price.billedAt).map((price) => price.id),
  );
  return new Set(ids.filter((id) => !billed.has(id)));
}

export async function createPrice(
  prisma: Db,
  accountId: string,
  productId: string,
  input: CreatePriceInput,
): Promise<PriceObject> {
  return prisma.$transaction(async (tx) => {
    // FOR SHARE: a concurrent DELETE /products/{id} either sees this price or makes this a 404.
    orNotFound(await lockProduct(tx, accountId, productId, 'share'), 'product', productId);
    if (input.recurring?.meter !== undefined)
      await assertActiveMeter(tx, accountId, input.recurring.meter, 'recurring.meter');
    const object = toPriceObject(await insertPrice(tx, accountId, productId, input));
    await recordEvent(tx, accountId, 'price.created', object);
    return object;
  });
}

function searchWhere(query: ListPricesQuery): Prisma.PriceWhereInput {
  const { text, filter } = query.search;
  const where: Prisma.PriceWhereInput = {};
  if (text) where.OR = [{ description: containsText(text) }, { id: text }];
  if (filter) {
    if (filter.active !== undefined) where.billedAt = filter.active ? { not: null } : null;
    if (filter.product !== undefined) where.productId = filter.product;
    if (filter.type !== undefined) where.type = filter.type;
    if (filter.currency !== undefined) where.currency = filter.currency;
    if (filter.ids !== undefined) where.id = { in: filter.ids };
    if (filter.created !== undefined) where.createdAt = createdWhere(filter.created);
  }
  return where;
}

export async function listPrices(prisma: Db, accountId: string, query: ListPricesQuery): Promise<Page<PriceObject>> {
  const where = { ...searchWhere(query), accountId };
  const { total, prices } = await readPricePage(prisma, where, pageWindow(query));
  const objects = prices.map(toPriceObject);
  return pageEnvelope(
    query.include === 'names' ? await withProductNames(prisma, accountId, objects) : objects,
    total,
    query,
  );
}

/**
 * Spec: a price that was billed, or that a subscription uses, cannot be deleted (409). Deleting the
 * product's default price leaves the product without one (`default_price: null`, product.updated).
 */
export async function deletePrice(
  prisma: Db,
  accountId: string,
  id: string,
): Promise<{ id: string; object: 'price'; deleted: true }> {
  return prisma.$transaction(async (tx) => {
    const price = await lockKnownPrice(tx, accountId, id, 'update');
    if (price.billedAt) {
      throw conflict(
        `Price ${id} has been billed and cannot be deleted; billed prices stay active for good.`,
        'price_billed',
      );
    }
    if ((await subscriptionItemCount(tx, accountId, [id])) > 0) {
      throw conflict(`Price ${id} is used by a subscription and cannot be deleted.`, 'price_in_use');
    }
    if ((await unpaidInvoiceLineCount(tx, accountId, [id])) > 0) {
      throw conflict(
        `Price ${id} is on a draft or open invoice and cannot be deleted; void the invoice first.`,
        'price_in_use',
      );
    }
    await deletePriceRow(tx, id);
    await recordEvent(tx, accountId, 'price.deleted', toPriceObject(price));
    const product = await clearDefaultPrice(tx, price, currentTime());
    if (product) await recordEvent(tx, accountId, 'product.updated', toProductObject(product));
    return { id, object: 'price' as const, deleted: true as const };
  });
}

export interface PriceUpdateResult {
  price: PriceObject;
  /** Fields the request gave that were not applied (a subscription uses the price). */
  ignored: string[];
}

async function applyPriceChanges(
  tx: Tx,
  accountId: string,
  price: Price,
  data: Prisma.PriceUpdateInput,
): Promise<PriceObject> {
  if (Object.keys(data).length === 0) return toPriceObject(price);
  const updated = await updatePriceRow(tx, price.id, { ...data, updatedAt: currentTime() });
  const object = toPriceObject(updated);
  await recordEvent(tx, accountId, 'price.updated', object);
  return object;
}

/** The price's type and recurring after a PATCH, which must still agree with each other. */
function mergedRecurring(
  price: Price,
  input: UpdateInactivePriceInput,
): { type: string; recurring: RecurringInput | null } {
  const type = input.type ?? price.type;
  let recurring: RecurringInput | null;
  if (input.recurring !== undefined) recurring = input.recurring;
  else if (type === 'one_time') recurring = null;
  else recurring = toPriceObject(price).recurring;
  if (type === 'recurring' && !recurring)
    throw badRequest("Invalid body parameter 'recurring': is required when type is recurring", 'recurring');
  if (type === 'one_time' && recurring) {
    throw badRequest("Invalid body parameter 'recurring': must be null or absent when type is one_time", 'recurring');
  }
  return { type, recurring };
}

/**
 * PATCH /prices/{id}/inactive: edits a price that has never been billed. When a subscription uses
 * the price only `description` is applied; the other fields given are reported back as ignored.
 */
export async function updateInactivePrice(
  prisma: Db,
  accountId: string,
  id: string,
  input: UpdateInactivePriceInput,
): Promise<PriceUpdateResult> {
  return prisma.$transaction(async (tx) => {
    const price = await lockKnownPrice(tx, accountId, id, 'update');
    if (price.billedAt) {
      throw conflict(
        `Price ${id} is active (it has been billed); only its description can change, with PATCH /prices/${id}/active.`,
        'price_active',
      );
    }
    const given = Object.keys(input).filter((key) => input[key as keyof UpdateInactivePriceInput] !== undefined);
    const data: Prisma.PriceUpdateInput = {};
    if (input.description !== undefined) data.description = input.description;

    if ((await subscriptionItemCount(tx, accountId, [id])) > 0) {
      const object = await applyPriceChanges(tx, accountId, price, data);
      return { price: object, ignored: given.filter((key) => key !== 'description') };
    }

    // A draft or open invoice billed the price as it stands: what it bills may not change under it (as DELETE).
    const billingFields = given.filter((key) => key !== 'description');
    if (billingFields.length > 0 && (await unpaidInvoiceLineCount(tx, accountId, [id])) > 0) {
      throw conflict(
        `Price ${id} is on a draft or open invoice; ${billingFields.join(', ')} cannot change until that invoice is paid or voided (description can).`,
        'price_in_use',
      );
    }
    const priceObject = toPriceObject(price);
    if (
      billingFields.length > 0 &&
      (priceObject.billing_scheme !== 'per_unit' || priceObject.recurring?.usage_type === 'metered')
    )
      throw conflict(
        `Price ${id} is tiered or metered; only its description can change (create another price for other terms).`,
        'price_usage_terms',
      );
    if (input.currency !== undefined) data.currency = input.currency;
    if (input.unit_amount !== undefined) data.unitAmount = input.unit_amount;
    if (input.tax_behavior !== undefined) data.taxBehavior = input.tax_behavior;
    if (input.type !== undefined || input.recurring !== undefined) {
      const merged = mergedRecurring(price, input);
      data.type = merged.type;
      Object.assign(data, recurringColumns(merged.recurring));
    }
    return { price: await applyPriceChanges(tx, accountId, price, data), ignored: [] };
  });
}

/** PATCH /prices/{id}/active: the description only; the active flag never changes here. */
export async function updatePriceDescription(
  prisma: Db,
  accountId: string,
  id: string,
  input: UpdateActivePriceInput,
): Promise<PriceObject> {
  return prisma.$transaction(async (tx) => {
    const price = await lockKnownPrice(tx, accountId, id, 'update');
    return applyPriceChanges(
      tx,
      accountId,
      price,
      input.description !== undefined ? { description: input.description } : {},
    );
  });
}
