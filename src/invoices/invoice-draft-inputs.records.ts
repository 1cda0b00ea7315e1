import type { Customer, PaymentMethod, Price } from '../generated/prisma/client';
import { CUSTOMER_COLUMNS, customerOfRow, type CustomerColumns } from '../customers';
import { PRICE_COLUMNS, priceOfRow, toPriceObject, type PriceObject } from '../catalog';
import { accountSellerJsonSql, rememberAccountSellerInTx, type AccountSeller } from '../accounts';
import { paymentMethodOfJson, paymentMethodOrDefaultJsonSql } from '../payments';
import { applicableDiscountJsonSql, periodDiscountOfJson, type PeriodDiscount } from '../coupons';
import { queryRows, type AnyTx, type Queryable, type RowColumns, type Statement } from '../db/sql';

// Apart from invoice.records.ts: these other modules' imports reach the invoices module back through their own
// (payments, coupons), and invoice.records.ts must be whole before invoice-list.records.ts reads its columns.

/**
 * What a billing invoice's draft reads under its locks, in one statement (docs/performance.md, "Nineteenth round"):
 * the live customer locked FOR KEY SHARE first (LOCK_CUSTOMER's lock), then the lines' prices FOR SHARE (each line's
 * price_lock_share) with their products' names, the account's seller details, and, when asked (`$4`), the payment
 * method the first attempt would charge: `$5`'s, or the customer's default when `$5` is null. No row: the customer
 * is unknown, deleted or another account's. `locked` false: the same reads taking no lock, for a preview made
 * outside any transaction (docs/decisions.md §25). Built at its first use: its text takes other modules' column
 * lists, which an import cycle at load time could leave undefined.
 */
const draftInputs = new Map<boolean, Statement>();
function draftInputsStatement(locked: boolean): Statement {
  let statement = draftInputs.get(locked);
  if (!statement) {
    statement = {
      name: locked ? 'invoice_draft_inputs' : 'invoice_draft_inputs_unlocked',
      text: `WITH c AS MATERIALIZED (SELECT * FROM customers
      WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL${locked ? ' FOR KEY SHARE' : ''})
    SELECT ${CUSTOMER_COLUMNS}, ${accountSellerJsonSql('$2')} AS seller,
    (SELECT coalesce(json_agg(x), '[]') FROM (SELECT ${PRICE_COLUMNS}, pr.name AS "productName"
      FROM prices p LEFT JOIN products pr ON pr.id = p.product_id AND pr.account_id = p.account_id
      WHERE p.account_id = $2 AND p.id = ANY($3::text[]) ORDER BY p.id${locked ? ' FOR SHARE OF p' : ''}) x) AS prices,
    CASE WHEN $4::boolean THEN ${paymentMethodOrDefaultJsonSql('$2', '$1', '$5')} END AS "paymentMethod",
    CASE WHEN $6::text IS NOT NULL THEN ${applicableDiscountJsonSql('$2', '$6', '$1', '$7')} END AS "periodDiscount"
    FROM c`,
    };
    draftInputs.set(locked, statement);
  }
  return statement;
}

/** A line's price as DRAFT_INPUTS read it, locked, with its product's name (null when the product row is gone). */
export interface LockedLinePrice {
  price: PriceObject;
  productName: string | null;
}

export interface DraftInputs {
  customer: Customer;
  seller: AccountSeller | undefined;
  /** By id: the prices found (an unknown id is absent: its line's own read answers the 404). */
  prices: Map<string, LockedLinePrice>;
  /** The first attempt's method as found (not yet checked usable); undefined when not asked for. */
  method?: PaymentMethod | null;
  /** The period's discount (coupons' periodDiscount), null when none applies; undefined when not asked for. */
  discount?: PeriodDiscount | null;
}

/**
 * draftInputsStatement's. In the billing transaction `tx` (locked), the seller remembered for it as
 * readAccountSellerInTx reads it; without one (`tx` undefined: a preview on `db` outside any transaction), read
 * without a lock. Null when the customer is not live.
 */
export async function readDraftInputs(
  db: Queryable,
  tx: AnyTx | undefined,
  accountId: string,
  customerId: string,
  priceIds: string[],
  asked: { method?: { id: string | null }; discountOfPeriod?: { subscriptionId: string; periodStart: Date } } = {},
): Promise<DraftInputs | null> {
  type Row = CustomerColumns & {
    seller: AccountSeller | null;
    prices: (RowColumns<Price> & { productName: string | null })[];
    paymentMethod: Record<string, unknown> | null;
    periodDiscount: Parameters<typeof periodDiscountOfJson>[0] | null;
  };
  const { method, discountOfPeriod } = asked;
  const [row] = await queryRows<Row>(tx ?? db, draftInputsStatement(tx !== undefined), [
    customerId,
    accountId,
    priceIds,
    !!method,
    method?.id ?? null,
    discountOfPeriod?.subscriptionId ?? null,
    discountOfPeriod?.periodStart.toISOString() ?? null,
  ]);
  if (!row) return null;
  const { seller, prices, paymentMethod, periodDiscount, ...customerColumns } = row;
  if (tx) rememberAccountSellerInTx(tx, accountId, seller ?? undefined);
  return {
    customer: customerOfRow(customerColumns),
    seller: seller ?? undefined,
    prices: new Map(
      prices.map(({ productName, ...price }) => [price.id, { price: toPriceObject(priceOfRow(price)), productName }]),
    ),
    ...(method ? { method: paymentMethod ? paymentMethodOfJson(paymentMethod) : null } : {}),
    ...(discountOfPeriod ? { discount: periodDiscount ? periodDiscountOfJson(periodDiscount) : null } : {}),
  };
}
