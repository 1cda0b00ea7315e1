// The coupons module's public face: what other modules use of it (written by scripts/module-faces.ts;
// docs/architecture.md, "Modules"). Files that load no other module's index.ts come first.
export { couponSchema, discountSchema } from './coupon.schemas';
export type { DiscountObject } from './coupon.schemas';
export { applicableDiscountJsonSql, useOnceDiscount } from './coupon.records';
export { assertRedeemable, periodDiscount, periodDiscountOfJson, redeemCoupon } from './coupon.service';
export type { PeriodDiscount } from './coupon.service';
export { discountParts, discountedLineTotals, splitByWeight } from './discount-lines';
export type { DiscountTerms } from './discount-lines';
export { registerCouponRoutes } from './coupon.routes';
