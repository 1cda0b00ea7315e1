import type { Coupon } from '../api/types';
import { formatMoney } from '../components/format';

/** The only currency the contract allows for prices (spec, "Price attributes"). */
export const CURRENCY = 'USD';

/** "25% off" or "$10.00 off", and how long: once, for 3 months, forever (docs/api.md, "Coupons and discounts"). */
export function couponTerms(coupon: Coupon): string {
  const off =
    coupon.percent_off !== null
      ? `${coupon.percent_off}% off`
      : `${formatMoney(coupon.amount_off ?? 0, coupon.currency ?? CURRENCY)} off`;
  const duration =
    coupon.duration === 'repeating'
      ? `for ${coupon.duration_in_months} month${coupon.duration_in_months === 1 ? '' : 's'}`
      : coupon.duration === 'once'
        ? 'once'
        : 'forever';
  return `${off}, ${duration}`;
}
