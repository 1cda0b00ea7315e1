import type { Db } from '../db/prisma';
import type { AnyTx, Queryable } from '../db/sql';
import { runTransaction } from '../db/sql-transaction';
import { ApiError, badRequest, notFound } from '../http/errors';
import { pageEnvelope, pageWindow, type Page } from '../http/pagination';
import { currentTime } from '../lib/clock-time';
import { recordEvent } from '../lib/events';
import { newId } from '../lib/ids';
import { toUnixSeconds } from '../lib/time';
import { addMonths } from '../subscriptions';
import type { DiscountTerms } from './discount-lines';
import {
  applicableDiscount,
  couponsPage,
  discountOfJson,
  findCoupon,
  insertCoupon,
  insertDiscount,
  markCouponDeleted,
  setHolderDiscount,
  takeRedemption,
  type CouponRow,
  type DiscountRow,
} from './coupon.records';
import {
  COUPON_DURATIONS,
  type CouponObject,
  type CreateCouponInput,
  type DiscountObject,
  type ListCouponsQuery,
} from './coupon.schemas';
import { columnValue } from '../lib/columns';

/** Whether the coupon can still be redeemed at `now`. */
function isValid(coupon: CouponRow, now: Date): boolean {
  return (
    coupon.deletedAt === null &&
    (coupon.redeemBy === null || coupon.redeemBy > now) &&
    (coupon.maxRedemptions === null || coupon.timesRedeemed < coupon.maxRedemptions)
  );
}

export function toCouponObject(coupon: CouponRow, now: Date = currentTime()): CouponObject {
  return {
    id: coupon.id,
    object: 'coupon',
    name: coupon.name,
    percent_off: coupon.percentOffHundredths === null ? null : coupon.percentOffHundredths / 100,
    amount_off: coupon.amountOff,
    currency: coupon.currency,
    duration: columnValue(COUPON_DURATIONS, coupon.duration, 'coupons.duration'),
    duration_in_months: coupon.durationInMonths,
    max_redemptions: coupon.maxRedemptions,
    redeem_by: toUnixSeconds(coupon.redeemBy),
    times_redeemed: coupon.timesRedeemed,
    valid: isValid(coupon, now),
    metadata: coupon.metadata,
    created: toUnixSeconds(coupon.createdAt),
  };
}

/** POST /coupons (coupon.created). redeem_by in the past is 400: such a coupon could never be redeemed. */
export async function createCoupon(prisma: Db, accountId: string, input: CreateCouponInput): Promise<CouponObject> {
  const now = currentTime();
  if (input.redeem_by !== undefined && input.redeem_by * 1000 <= now.getTime())
    throw badRequest("Invalid body parameter 'redeem_by': must be in the future", 'redeem_by');
  return runTransaction(prisma, async (tx) => {
    const coupon = await insertCoupon(tx, {
      id: newId('coupon'),
      accountId,
      name: input.name ?? null,
      percentOffHundredths: input.percent_off === undefined ? null : Math.round(input.percent_off * 100),
      amountOff: input.amount_off ?? null,
      currency: input.currency ?? null,
      duration: input.duration,
      durationInMonths: input.duration_in_months ?? null,
      maxRedemptions: input.max_redemptions ?? null,
      redeemBy: input.redeem_by === undefined ? null : new Date(input.redeem_by * 1000),
      metadata: input.metadata ?? {},
      createdAt: now,
    });
    const object = toCouponObject(coupon, now);
    await recordEvent(tx, accountId, 'coupon.created', object);
    return object;
  });
}

/** The account's coupon, not deleted, or 404 naming `param` (also for another account's: no existence leak). */
async function liveCoupon(db: Queryable, accountId: string, id: string, param = 'id'): Promise<CouponRow> {
  const coupon = await findCoupon(db, accountId, id);
  if (!coupon) throw notFound('coupon', id, param);
  return coupon;
}

export async function getCoupon(prisma: Db, accountId: string, id: string): Promise<CouponObject> {
  return toCouponObject(await liveCoupon(prisma, accountId, id));
}

/** GET /coupons: the account's coupons not deleted, newest first. */
export async function listCoupons(prisma: Db, accountId: string, query: ListCouponsQuery): Promise<Page<CouponObject>> {
  const [rows, total] = await couponsPage(prisma, accountId, pageWindow(query));
  const now = currentTime();
  return pageEnvelope(
    rows.map((row) => toCouponObject(row, now)),
    total,
    query,
  );
}

/**
 * DELETE /coupons/{id} (coupon.deleted): no redemption from now on; discounts made from it keep
 * running to their end, as Stripe's (they hold the coupon as it was redeemed).
 */
export async function deleteCoupon(
  prisma: Db,
  accountId: string,
  id: string,
): Promise<{ id: string; object: 'coupon'; deleted: true }> {
  return runTransaction(prisma, async (tx) => {
    const now = currentTime();
    const coupon = await markCouponDeleted(tx, accountId, id, now);
    if (!coupon) throw notFound('coupon', id);
    await recordEvent(tx, accountId, 'coupon.deleted', toCouponObject(coupon, now));
    return { id, object: 'coupon' as const, deleted: true as const };
  });
}

/** An amount_off coupon in another currency than the subscription's: 400 naming `param`. */
function assertCurrency(coupon: CouponRow, currency: string | undefined, param: string): void {
  if (currency !== undefined && coupon.currency !== null && coupon.currency !== currency)
    throw badRequest(
      `Coupon ${coupon.id} takes ${coupon.currency} off; the subscription bills in ${currency}.`,
      param,
      'coupon_currency_mismatch',
    );
}

/** The holder a coupon is redeemed on: a customer, or one of its subscriptions (and its currency). */
export interface DiscountHolder {
  customerId: string;
  subscriptionId: string | null;
  /** A subscription's currency: an amount_off coupon in another is refused. */
  currency?: string;
}

/**
 * Redeems coupon `couponId` on `holder` in the caller's transaction (docs/decisions.md §37): one
 * redemption taken (404 naming `param` for an unknown, deleted or another account's coupon; 409 past
 * redeem_by or at max_redemptions), the holder's current discount replaced by a new one from now
 * (repeating: until now + duration_in_months), shown on the holder, customer.discount.created.
 */
export async function redeemCoupon(
  tx: AnyTx,
  accountId: string,
  couponId: string,
  holder: DiscountHolder,
  param = 'coupon',
): Promise<DiscountObject> {
  const now = currentTime();
  const coupon = await takeRedemption(tx, accountId, couponId, now);
  if (!coupon) {
    // Nothing taken: say why (404, or 409 past redeem_by or at max_redemptions).
    await assertRedeemable(tx, accountId, couponId, param);
    throw new Error(`Coupon ${couponId} refused a redemption it allows.`);
  }
  assertCurrency(coupon, holder.currency, param);
  const couponObject = toCouponObject(coupon, now);
  const discount: DiscountObject = {
    id: newId('discount'),
    object: 'discount',
    coupon: couponObject,
    customer: holder.customerId,
    subscription: holder.subscriptionId,
    start: toUnixSeconds(now),
    end:
      coupon.duration === 'repeating' && coupon.durationInMonths !== null
        ? toUnixSeconds(new Date(addMonths(now.getTime(), coupon.durationInMonths)))
        : null,
  };
  await insertDiscount(tx, accountId, {
    id: discount.id,
    couponId,
    customerId: holder.customerId,
    subscriptionId: holder.subscriptionId,
    coupon: couponObject,
    start: now,
    end: discount.end === null ? null : new Date(discount.end * 1000),
  });
  await setHolderDiscount(tx, accountId, holder, discount);
  await recordEvent(tx, accountId, 'customer.discount.created', discount);
  return discount;
}

/** 404 naming `coupon` or 409 as redeemCoupon would answer, before anything else of a request is done. */
export async function assertRedeemable(
  db: Queryable,
  accountId: string,
  couponId: string,
  param = 'coupon',
  currency?: string,
): Promise<void> {
  const coupon = await liveCoupon(db, accountId, couponId, param);
  assertCurrency(coupon, currency, param);
  const now = currentTime();
  // The 409s name the field too, so a form shows them beside its coupon picker.
  if (coupon.redeemBy !== null && coupon.redeemBy <= now)
    throw new ApiError(
      'conflict',
      'coupon_expired',
      `Coupon ${couponId} could be redeemed until ${coupon.redeemBy.toISOString()}.`,
      param,
    );
  if (coupon.maxRedemptions !== null && coupon.timesRedeemed >= coupon.maxRedemptions)
    throw new ApiError(
      'conflict',
      'coupon_max_redemptions_reached',
      `Coupon ${couponId} was redeemed ${coupon.timesRedeemed} times, its max_redemptions.`,
      param,
    );
}

/** The discount terms of a coupon object as a discount holds it. */
function termsOf(coupon: CouponObject): DiscountTerms {
  return {
    percentOffHundredths: coupon.percent_off === null ? null : Math.round(coupon.percent_off * 100),
    amountOff: coupon.amount_off,
  };
}

/** A discount as a period's invoice takes it (the invoice module's InvoiceDiscount). */
export interface PeriodDiscount {
  id: string;
  label: string;
  terms: DiscountTerms;
  currency: string | null;
  once: boolean;
}

/**
 * The discount a subscription's period invoice takes (docs/decisions.md §37), as the invoice module
 * takes it; undefined when none applies to the period starting at `periodStartMs`.
 */
export async function periodDiscount(
  db: Queryable,
  accountId: string,
  subscriptionId: string,
  customerId: string,
  periodStartMs: number,
): Promise<PeriodDiscount | undefined> {
  const row = await applicableDiscount(db, accountId, subscriptionId, customerId, new Date(periodStartMs));
  return row ? periodDiscountOf(row) : undefined;
}

/** A period's discount (periodDiscount's answer) from its row: as read by applicableDiscountJsonSql, say. */
export function periodDiscountOf(row: DiscountRow): PeriodDiscount {
  const coupon = row.coupon as CouponObject;
  return {
    id: row.id,
    label: coupon.name ?? coupon.id,
    terms: termsOf(coupon),
    currency: coupon.currency,
    once: coupon.duration === 'once',
  };
}

/** periodDiscountOf of a row applicableDiscountJsonSql answered as JSON. */
export function periodDiscountOfJson(row: Parameters<typeof discountOfJson>[0]): PeriodDiscount {
  return periodDiscountOf(discountOfJson(row));
}
