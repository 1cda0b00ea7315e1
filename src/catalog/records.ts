import {
  BILLING_SCHEMES,
  PRICE_TYPES,
  TAX_BEHAVIORS,
  TIERS_MODES,
  TRANSFORM_ROUNDINGS,
  USAGE_TYPES,
} from './price.schemas';
import { columnValue, nullableColumnValue } from '../lib/columns';
import { Prisma, type Price, type Product, type TaxRate } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';
import { toUnixSeconds } from '../lib/time';
import type { PriceObject } from './price.schemas';
import type { ProductObject } from './product.schemas';
import { updatedMsOf } from '../lib/object-version';
import {
  modelColumns,
  modelOfRow,
  queryRows,
  selectList,
  type AnyTx,
  type Queryable,
  type RowColumns,
  type Statement,
  withNamesFrom,
} from '../db/sql';

/** Rows and API shapes shared by the product and price services (kept apart to avoid an import cycle). */

export function toProductObject(product: Product): ProductObject {
  return {
    id: product.id,
    object: 'product',
    active: product.active,
    created: toUnixSeconds(product.createdAt),
    updated_ms: updatedMsOf(product),
    default_price: product.defaultPriceId,
    description: product.description,
    name: product.name,
    tax_code: product.taxCode,
    updated: toUnixSeconds(product.updatedAt),
  };
}

export function toPriceObject(price: Price): PriceObject {
  return {
    id: price.id,
    object: 'price',
    product: price.productId,
    active: price.billedAt !== null,
    currency: price.currency,
    unit_amount: price.unitAmount,
    type: columnValue(PRICE_TYPES, price.type, 'prices.type'),
    recurring:
      price.recurringInterval && price.recurringIntervalCount
        ? {
            interval: price.recurringInterval as 'day' | 'week' | 'month' | 'year',
            interval_count: price.recurringIntervalCount,
            usage_type: columnValue(USAGE_TYPES, price.usageType, 'prices.usage_type'),
            meter: price.meterId,
          }
        : null,
    billing_scheme: columnValue(BILLING_SCHEMES, price.billingScheme, 'prices.billing_scheme'),
    tiers_mode: nullableColumnValue(TIERS_MODES, price.tiersMode, 'prices.tiers_mode'),
    tiers: price.tiers as PriceObject['tiers'],
    transform_quantity:
      price.transformDivideBy !== null && price.transformRound !== null
        ? {
            divide_by: price.transformDivideBy,
            round: columnValue(TRANSFORM_ROUNDINGS, price.transformRound, 'prices.transform_round'),
          }
        : null,
    tax_behavior: columnValue(TAX_BEHAVIORS, price.taxBehavior, 'prices.tax_behavior'),
    description: price.description,
    created: toUnixSeconds(price.createdAt),
    updated_ms: updatedMsOf(price),
    updated: toUnixSeconds(price.updatedAt),
  };
}

/** A prices row's columns in Prisma's shape (its ScalarFieldEnum: none missed), for statements outside Prisma. */
const PRICE_MODEL = modelColumns<Price>(Prisma.PriceScalarFieldEnum, {
  bigint: ['updatedMs'],
  date: ['createdAt'],
  'date?': ['billedAt', 'updatedAt'],
});
/** The select list of a prices row `p` (priceOfRow reads it). */
export const PRICE_COLUMNS = selectList(PRICE_MODEL, 'p');

export function priceOfRow(row: RowColumns<Price> | Record<string, unknown>): Price {
  return modelOfRow(PRICE_MODEL, row as Record<string, unknown>);
}

const TAX_RATE_MODEL = modelColumns<TaxRate>(Prisma.TaxRateScalarFieldEnum, {
  bigint: ['updatedMs'],
  date: ['createdAt'],
  'date?': ['updatedAt'],
});
/** The select list of a tax_rates row `t` (taxRateOfRow reads it). */
export const TAX_RATE_COLUMNS = selectList(TAX_RATE_MODEL, 't');

export function taxRateOfRow(row: RowColumns<TaxRate> | Record<string, unknown>): TaxRate {
  return modelOfRow(TAX_RATE_MODEL, row as Record<string, unknown>);
}

const PRICES_BY_ID: Statement = {
  name: 'prices_by_id',
  text: `SELECT ${PRICE_COLUMNS} FROM prices p WHERE p.account_id = $1 AND p.id = ANY($2::text[])`,
};

/** The account's prices of `ids` as they are now, in one prepared statement (src/db/sql.ts); unknown ids are left out. */
export async function readPrices(db: Queryable, accountId: string, ids: string[]): Promise<PriceObject[]> {
  const rows = await queryRows<RowColumns<Price>>(db, PRICES_BY_ID, [accountId, ids]);
  return rows.map((row) => toPriceObject(priceOfRow(row)));
}

const PRODUCT_NAMES: Statement = {
  name: 'product_names',
  text: 'SELECT id, name FROM products WHERE account_id = $1 AND id = ANY($2::text[])',
};

/** `prices` with `product_name` beside their `product` (docs/api.md, "Names on list rows"). */
export function withProductNames(db: Queryable, accountId: string, prices: PriceObject[]): Promise<PriceObject[]> {
  return withNamesFrom(db, PRODUCT_NAMES, accountId, prices, 'product', 'product_name');
}

/** A product of the account, or null (also for another account's product). */
export function findProductRow(db: Db | Tx, accountId: string, id: string): Promise<Product | null> {
  return db.product.findFirst({ where: { id, accountId } });
}

/** A price of the account, or null (also for another account's price). */
export function findPriceRow(db: Db | Tx, accountId: string, id: string): Promise<Price | null> {
  return db.price.findFirst({ where: { id, accountId } });
}

/**
 * Row locks that serialise the catalog's state checks with concurrent changes: a DELETE takes
 * FOR UPDATE, while creating a price (or attaching one) takes FOR SHARE, so a check such as
 * "never billed and not attached" cannot be overtaken between the read and the write.
 */
export async function lockProduct(
  tx: Tx,
  accountId: string,
  id: string,
  mode: 'update' | 'share',
): Promise<Product | null> {
  const rows =
    mode === 'update'
      ? await tx.$queryRaw<
          { id: string }[]
        >`SELECT id FROM products WHERE id = ${id} AND account_id = ${accountId} FOR UPDATE`
      : await tx.$queryRaw<
          { id: string }[]
        >`SELECT id FROM products WHERE id = ${id} AND account_id = ${accountId} FOR SHARE`;
  if (rows.length === 0) return null;
  return findProductRow(tx, accountId, id);
}

const LOCK_PRICE = {
  update: {
    name: 'price_lock_update',
    text: `SELECT ${PRICE_COLUMNS} FROM prices p WHERE p.id = $1 AND p.account_id = $2 FOR UPDATE`,
  },
  share: {
    name: 'price_lock_share',
    text: `SELECT ${PRICE_COLUMNS} FROM prices p WHERE p.id = $1 AND p.account_id = $2 FOR SHARE`,
  },
} satisfies Record<string, Statement>;

export async function lockPrice(
  tx: AnyTx,
  accountId: string,
  id: string,
  mode: 'update' | 'share',
): Promise<Price | null> {
  // The lock and the read in one statement (every invoice line and subscription item takes it).
  const [row] = await queryRows<RowColumns<Price>>(tx, LOCK_PRICE[mode], [id, accountId]);
  return row ? priceOfRow(row) : null;
}

const SET_PRICE_BILLED: Statement = {
  name: 'price_set_billed',
  text: `UPDATE prices p SET billed_at = $3, updated_at = $3 WHERE p.id = $1 AND p.account_id = $2 RETURNING ${PRICE_COLUMNS}`,
};

/** Marks a price the caller has locked billed at `at` (src/catalog/price.service.ts markPricesBilled). */
export async function setPriceBilled(tx: AnyTx, accountId: string, id: string, at: Date): Promise<Price | null> {
  const [row] = await queryRows<RowColumns<Price>>(tx, SET_PRICE_BILLED, [id, accountId, at]);
  return row ? priceOfRow(row) : null;
}

const PRICES_BILLED_AT: Statement = {
  name: 'prices_billed_at',
  text: 'SELECT id, billed_at AS "billedAt" FROM prices WHERE account_id = $1 AND id = ANY($2::text[])',
};

/** When each of the account's prices of `ids` was billed (null: never), read without a lock; unknown ids are left out. */
export async function pricesBilledAt(
  db: Queryable,
  accountId: string,
  ids: string[],
): Promise<Pick<Price, 'id' | 'billedAt'>[]> {
  return queryRows<Pick<Price, 'id' | 'billedAt'>>(db, PRICES_BILLED_AT, [accountId, ids]);
}

const LOCK_PRODUCT_PRICES: Statement = {
  name: 'prices_lock_product',
  text: 'SELECT id FROM prices WHERE product_id = $1 ORDER BY id FOR UPDATE',
};

/** Locks every price of the product (FOR UPDATE, in id order) until the caller's transaction ends. */
export async function lockProductPrices(tx: AnyTx, productId: string): Promise<void> {
  await queryRows(tx, LOCK_PRODUCT_PRICES, [productId]);
}

const ACTIVE_TAX_RATE_IDS: Statement = {
  name: 'tax_rates_active_ids',
  text: 'SELECT id FROM tax_rates WHERE account_id = $1 AND id = ANY($2::text[]) AND active',
};

/** Which of `ids` are the account's active tax rates. */
export async function activeTaxRateIds(db: Queryable, accountId: string, ids: string[]): Promise<string[]> {
  return (await queryRows<{ id: string }>(db, ACTIVE_TAX_RATE_IDS, [accountId, ids])).map((row) => row.id);
}

/** The amount and tax behaviour of the account's prices of `ids`, any order; unknown ids are left out. */
export function readPriceAmounts(
  db: Db | Tx,
  accountId: string,
  ids: string[],
): Promise<Pick<Price, 'id' | 'unitAmount' | 'taxBehavior'>[]> {
  return db.price.findMany({
    where: { accountId, id: { in: ids } },
    select: { id: true, unitAmount: true, taxBehavior: true },
  });
}

/** The account's active tax rates of `ids`, any order; unknown and deactivated ones are left out. */
export function readActiveTaxRates(db: Db | Tx, accountId: string, ids: string[]): Promise<TaxRate[]> {
  return db.taxRate.findMany({ where: { accountId, id: { in: ids }, active: true } });
}

const TAX_RATES_BY_ID: Statement = {
  name: 'tax_rates_by_id',
  text: `SELECT ${TAX_RATE_COLUMNS} FROM tax_rates t WHERE t.account_id = $1 AND t.id = ANY($2::text[])`,
};

/** The account's tax rates of `ids`, any order; unknown ids are left out. */
export async function readTaxRates(db: Queryable, accountId: string, ids: string[]): Promise<TaxRate[]> {
  return (await queryRows<RowColumns<TaxRate>>(db, TAX_RATES_BY_ID, [accountId, ids])).map(taxRateOfRow);
}

/**
 * Number of lines of draft or open invoices that bill any of the prices: such an invoice may still
 * be paid, which marks its prices billed, so they must not be deleted under it.
 */
export async function unpaidInvoiceLineCount(db: Db | Tx, accountId: string, priceIds: string[]): Promise<number> {
  if (priceIds.length === 0) return 0;
  return db.invoiceLine.count({
    where: { accountId, priceId: { in: priceIds }, invoice: { status: { in: ['draft', 'open'] } } },
  });
}

/** Number of subscription items (of the price's own account) that use each of the prices. */
export async function subscriptionItemCount(db: Db | Tx, accountId: string, priceIds: string[]): Promise<number> {
  if (priceIds.length === 0) return 0;
  return db.subscriptionItem.count({ where: { accountId, priceId: { in: priceIds } } });
}

/** The account's tax rate, or null (another account's too). */
export function readTaxRateRow(db: Db | Tx, accountId: string, id: string): Promise<TaxRate | null> {
  return db.taxRate.findFirst({ where: { id, accountId } });
}

export function insertTaxRate(tx: Tx, data: Prisma.TaxRateUncheckedCreateInput): Promise<TaxRate> {
  return tx.taxRate.create({ data });
}

export function updateTaxRateRow(tx: Tx, id: string, data: Prisma.TaxRateUpdateInput): Promise<TaxRate> {
  return tx.taxRate.update({ where: { id }, data });
}

/** A page of the account's tax rates, newest first, with how many match the filters in all. */
export async function readTaxRatePage(
  db: Db,
  accountId: string,
  filters: { active?: boolean; inclusive?: boolean },
  window: { skip: number; take: number },
): Promise<{ total: number; rates: TaxRate[] }> {
  const where: Prisma.TaxRateWhereInput = { accountId };
  if (filters.active !== undefined) where.active = filters.active;
  if (filters.inclusive !== undefined) where.inclusive = filters.inclusive;
  const [total, rates] = await Promise.all([
    db.taxRate.count({ where }),
    db.taxRate.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], ...window }),
  ]);
  return { total, rates };
}

export function insertProduct(tx: Tx, data: Prisma.ProductUncheckedCreateInput): Promise<Product> {
  return tx.product.create({ data });
}

export function updateProductRow(tx: Tx, id: string, data: Prisma.ProductUpdateInput): Promise<Product> {
  return tx.product.update({ where: { id }, data });
}

/** A page of the account's products that match `where`, newest first, with how many match in all. */
export async function readProductPage(
  db: Db,
  where: Prisma.ProductWhereInput & { accountId: string },
  window: { skip: number; take: number },
): Promise<{ total: number; products: Product[] }> {
  const [total, products] = await Promise.all([
    db.product.count({ where }),
    db.product.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], ...window }),
  ]);
  return { total, products };
}

/** A product's prices, in id order. */
export function readProductPrices(tx: Tx, productId: string): Promise<Price[]> {
  return tx.price.findMany({ where: { productId }, orderBy: { id: 'asc' } });
}

/** Deletes a product and its prices (the caller has checked that none is billed or used). */
export async function deleteProductAndPrices(tx: Tx, productId: string): Promise<void> {
  await tx.price.deleteMany({ where: { productId } });
  await tx.product.delete({ where: { id: productId } });
}

export function insertPriceRow(tx: Tx, data: Prisma.PriceUncheckedCreateInput): Promise<Price> {
  return tx.price.create({ data });
}

export function updatePriceRow(tx: Tx, id: string, data: Prisma.PriceUpdateInput): Promise<Price> {
  return tx.price.update({ where: { id }, data });
}

export async function deletePriceRow(tx: Tx, id: string): Promise<void> {
  await tx.price.delete({ where: { id } });
}

/** A page of the account's prices that match `where`, newest first, with how many match in all. */
export async function readPricePage(
  db: Db,
  where: Prisma.PriceWhereInput & { accountId: string },
  window: { skip: number; take: number },
): Promise<{ total: number; prices: Price[] }> {
  const [total, prices] = await Promise.all([
    db.price.count({ where }),
    db.price.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], ...window }),
  ]);
  return { total, prices };
}

/** Takes the price off its product as the default; answers the product when it was its default, else null. */
export async function clearDefaultPrice(tx: Tx, price: Price, at: Date): Promise<Product | null> {
  const { count } = await tx.product.updateMany({
    where: { id: price.productId, defaultPriceId: price.id },
    data: { defaultPriceId: null, updatedAt: at },
  });
  return count > 0 ? tx.product.findUniqueOrThrow({ where: { id: price.productId } }) : null;
}
