import type { Db } from '../db/prisma';
import { queryRows, type AnyTx, type Queryable, type Statement } from '../db/sql';

/**
 * A coupons row as every statement here reads it (raw SQL: redemptions and invoice billing run in
 * either kind of transaction, docs/architecture.md "Data access"); numbers and times normalized.
 */
export interface CouponRow {
  id: string;
  accountId: string;
  name: string | null;
  percentOffHundredths: number | null;
  amountOff: number | null;
  currency: string | null;
  duration: string;
  durationInMonths: number | null;
  maxRedemptions: number | null;
  redeemBy: Date | null;
  timesRedeemed: number;
  metadata: Record<string, string>;
  deletedAt: Date | null;
  createdAt: Date;
}

const COUPON_COLUMNS = `id, account_id AS "accountId", name, percent_off_hundredths AS "percentOffHundredths",
  amount_off::text AS "amountOff", currency, duration, duration_in_months AS "durationInMonths",
  max_redemptions AS "maxRedemptions", redeem_by AS "redeemBy", times_redeemed AS "timesRedeemed", metadata,
  deleted_at AS "deletedAt", created_at AS "createdAt"`;

type RawCoupon = Omit<CouponRow, 'amountOff' | 'redeemBy' | 'deletedAt' | 'createdAt'> & {
  amountOff: string | null;
  redeemBy: Date | string | null;
  deletedAt: Date | string | null;
  createdAt: Date | string;
};

const at = (value: Date | string | null) => (value === null ? null : new Date(value));

function couponOfRaw(row: RawCoupon): CouponRow {
  return {
    ...row,
    amountOff: row.amountOff === null ? null : Number(row.amountOff),
    redeemBy: at(row.redeemBy),
    deletedAt: at(row.deletedAt),
    createdAt: new Date(row.createdAt),
    metadata: (typeof row.metadata === 'string' ? JSON.parse(row.metadata) : row.metadata) as Record<string, string>,
  };
}

const INSERT_COUPON: Statement = {
  name: 'coupon_insert',
  text: `INSERT INTO coupons (id, account_id, name, percent_off_hundredths, amount_off, currency, duration,
      duration_in_months, max_redemptions, redeem_by, metadata, created_at)
    VALUES ($1, $2, $3, $4::int, $5::bigint, $6, $7, $8::int, $9::int, $10::timestamptz, $11::jsonb, $12::timestamptz)
    RETURNING ${COUPON_COLUMNS}`,
};

export async function insertCoupon(
  tx: AnyTx,
  coupon: Omit<CouponRow, 'timesRedeemed' | 'deletedAt'>,
): Promise<CouponRow> {
  const [row] = await queryRows<RawCoupon>(tx, INSERT_COUPON, [
    coupon.id,
    coupon.accountId,
    coupon.name,
    coupon.percentOffHundredths,
    coupon.amountOff,
    coupon.currency,
    coupon.duration,
    coupon.durationInMonths,
    coupon.maxRedemptions,
    coupon.redeemBy?.toISOString() ?? null,
    JSON.stringify(coupon.metadata),
    coupon.createdAt.toISOString(),
  ]);
  return couponOfRaw(row!);
}

const FIND_COUPON: Statement = {
  name: 'coupon_find',
  text: `SELECT ${COUPON_COLUMNS} FROM coupons WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL`,
};

/** The account's coupon, not deleted; null when there is none (another account's too). */
export async function findCoupon(db: Queryable, accountId: string, id: string): Promise<CouponRow | null> {
  const [row] = await queryRows<RawCoupon>(db, FIND_COUPON, [id, accountId]);
  return row ? couponOfRaw(row) : null;
}

const DELETE_COUPON: Statement = {
  name: 'coupon_delete',
  text: `UPDATE coupons SET deleted_at = $3::timestamptz WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL
    RETURNING ${COUPON_COLUMNS}`,
};

/** Marks the coupon deleted (no new redemption); null when there was none to delete. */
export async function markCouponDeleted(
  tx: AnyTx,
  accountId: string,
  id: string,
  now: Date,
): Promise<CouponRow | null> {
  const [row] = await queryRows<RawCoupon>(tx, DELETE_COUPON, [id, accountId, now.toISOString()]);
  return row ? couponOfRaw(row) : null;
}

const TAKE_REDEMPTION: Statement = {
  name: 'coupon_take_redemption',
  text: `UPDATE coupons SET times_redeemed = times_redeemed + 1
    WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL
      AND (max_redemptions IS NULL OR times_redeemed < max_redemptions)
      AND (redeem_by IS NULL OR redeem_by > $3::timestamptz)
    RETURNING ${COUPON_COLUMNS}`,
};

/**
 * One redemption taken, or null when the coupon is unknown, deleted, past redeem_by or at max_redemptions.
 * One statement checks and counts: concurrent redemptions queue on the row, and each sees the count the
 * previous one left, so two can never take the last one.
 */
export async function takeRedemption(tx: AnyTx, accountId: string, id: string, now: Date): Promise<CouponRow | null> {
  const [row] = await queryRows<RawCoupon>(tx, TAKE_REDEMPTION, [id, accountId, now.toISOString()]);
  return row ? couponOfRaw(row) : null;
}

export async function couponsPage(
  db: Db,
  accountId: string,
  window: { skip: number; take: number },
): Promise<[CouponRow[], number]> {
  const where = { accountId, deletedAt: null };
  const [rows, total] = await Promise.all([
    db.coupon.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], ...window }),
    db.coupon.count({ where }),
  ]);
  return [
    rows.map((row) => ({
      ...row,
      amountOff: row.amountOff === null ? null : Number(row.amountOff),
      metadata: row.metadata as Record<string, string>,
    })),
    total,
  ];
}

// --- discounts ---

/** A discounts row: `coupon` is the coupon object as it was redeemed. */
export interface DiscountRow {
  id: string;
  couponId: string;
  customerId: string;
  subscriptionId: string | null;
  coupon: unknown;
  start: Date;
  end: Date | null;
}

const DISCOUNT_COLUMNS = `id, coupon_id AS "couponId", customer_id AS "customerId", subscription_id AS "subscriptionId",
  coupon, start, "end"`;

type RawDiscount = Omit<DiscountRow, 'start' | 'end'> & { start: Date | string; end: Date | string | null };

const discountOfRaw = (row: RawDiscount): DiscountRow => ({
  ...row,
  coupon: typeof row.coupon === 'string' ? JSON.parse(row.coupon) : row.coupon,
  start: new Date(row.start),
  end: at(row.end),
});

const REMOVE_CURRENT: Statement = {
  name: 'discount_remove_current',
  text: `UPDATE discounts SET removed_at = $4::timestamptz
    WHERE account_id = $1 AND removed_at IS NULL
      AND (CASE WHEN $3::text IS NULL THEN customer_id = $2 AND subscription_id IS NULL ELSE subscription_id = $3 END)`,
};

const INSERT_DISCOUNT: Statement = {
  name: 'discount_insert',
  text: `INSERT INTO discounts (id, account_id, coupon_id, customer_id, subscription_id, coupon, start, "end", created_at)
    VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::timestamptz, $8::timestamptz, $7::timestamptz)`,
};

/** The holder's discount replaced by `discount` (the one before it removed), in the caller's transaction. */
export async function insertDiscount(tx: AnyTx, accountId: string, discount: DiscountRow): Promise<void> {
  await queryRows(tx, REMOVE_CURRENT, [
    accountId,
    discount.customerId,
    discount.subscriptionId,
    discount.start.toISOString(),
  ]);
  await queryRows(tx, INSERT_DISCOUNT, [
    discount.id,
    accountId,
    discount.couponId,
    discount.customerId,
    discount.subscriptionId,
    JSON.stringify(discount.coupon),
    discount.start.toISOString(),
    discount.end?.toISOString() ?? null,
  ]);
}

const SET_CUSTOMER_DISCOUNT: Statement = {
  name: 'customer_set_discount',
  text: `UPDATE customers SET discount = $3::jsonb WHERE id = $1 AND account_id = $2`,
};
const SET_SUBSCRIPTION_DISCOUNT: Statement = {
  name: 'subscription_set_discount',
  text: `UPDATE subscriptions SET discount = $3::jsonb WHERE id = $1 AND account_id = $2`,
};

/** The `discount` the customer or subscription object shows (null: none). */
export async function setHolderDiscount(
  tx: AnyTx,
  accountId: string,
  holder: { customerId: string; subscriptionId: string | null },
  discount: object | null,
): Promise<void> {
  const json = discount === null ? null : JSON.stringify(discount);
  if (holder.subscriptionId === null) await queryRows(tx, SET_CUSTOMER_DISCOUNT, [holder.customerId, accountId, json]);
  else await queryRows(tx, SET_SUBSCRIPTION_DISCOUNT, [holder.subscriptionId, accountId, json]);
}

const APPLICABLE_DISCOUNT: Statement = {
  name: 'discount_applicable',
  text: `SELECT ${DISCOUNT_COLUMNS} FROM discounts
    WHERE account_id = $1 AND removed_at IS NULL AND used_invoice_id IS NULL
      AND (subscription_id = $2 OR (customer_id = $3 AND subscription_id IS NULL))
      AND ("end" IS NULL OR "end" > $4::timestamptz)
    ORDER BY (subscription_id IS NULL), created_at DESC, id
    LIMIT 1`,
};

/**
 * APPLICABLE_DISCOUNT as a scalar subselect answering its row as JSON (discountOfJson reads it), its parameters
 * named by the caller: another module's statement reads the discount with what it reads (an invoice's inputs).
 */
export function applicableDiscountJsonSql(
  accountParam: string,
  subscriptionParam: string,
  customerParam: string,
  periodStartParam: string,
): string {
  return `(SELECT json_build_object('id', id, 'couponId', coupon_id, 'customerId', customer_id,
      'subscriptionId', subscription_id, 'coupon', coupon, 'start', start, 'end', "end") FROM discounts
    WHERE account_id = ${accountParam} AND removed_at IS NULL AND used_invoice_id IS NULL
      AND (subscription_id = ${subscriptionParam}::text OR (customer_id = ${customerParam} AND subscription_id IS NULL))
      AND ("end" IS NULL OR "end" > ${periodStartParam}::timestamptz)
    ORDER BY (subscription_id IS NULL), created_at DESC, id
    LIMIT 1)`;
}

/** A row applicableDiscountJsonSql answered. */
export function discountOfJson(row: RawDiscount): DiscountRow {
  return discountOfRaw(row);
}

/**
 * The discount a subscription's period starting at `periodStart` takes (docs/decisions.md §37): the
 * subscription's own while it runs, else its customer's; a `once` discount not used yet; a `repeating`
 * one while the period starts before its end.
 */
export async function applicableDiscount(
  db: Queryable,
  accountId: string,
  subscriptionId: string,
  customerId: string,
  periodStart: Date,
): Promise<DiscountRow | null> {
  const [row] = await queryRows<RawDiscount>(db, APPLICABLE_DISCOUNT, [
    accountId,
    subscriptionId,
    customerId,
    periodStart.toISOString(),
  ]);
  return row ? discountOfRaw(row) : null;
}

const USE_ONCE: Statement = {
  name: 'discount_use_once',
  text: `UPDATE discounts SET used_invoice_id = $3 WHERE id = $1 AND account_id = $2 AND used_invoice_id IS NULL
    RETURNING customer_id AS "customerId", subscription_id AS "subscriptionId"`,
};

/**
 * A `once` discount taken by invoice `invoiceId`: false when another invoice took it first (the row's
 * lock orders them). Its holder then shows no discount, as Stripe removes a used one.
 */
export async function useOnceDiscount(tx: AnyTx, accountId: string, id: string, invoiceId: string): Promise<boolean> {
  const [row] = await queryRows<{ customerId: string; subscriptionId: string | null }>(tx, USE_ONCE, [
    id,
    accountId,
    invoiceId,
  ]);
  if (!row) return false;
  await setHolderDiscount(tx, accountId, row, null);
  return true;
}
