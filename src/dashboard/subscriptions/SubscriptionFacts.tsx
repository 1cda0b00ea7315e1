import type { Subscription } from '../api/types';
import { formatDate, formatDateTime, formatMoney } from '../components/format';
import { couponTerms } from '../catalog/terms';
import { Link } from '../router';
import { nextInvoiceDate, subscriptionAmount } from './facts';

type Discount = NonNullable<Subscription['discount']>;

/** A subscription's facts: its customer, amount and discount, its period and the dates of its life. */
export function SubscriptionFacts({
  subscription: s,
  customerDiscount,
}: {
  subscription: Subscription;
  customerDiscount: Discount | null;
}) {
  return (
    <dl className="card facts">
      <dt>Customer</dt>
      <dd>
        <Link to={`/customers/${s.customer}`}>{s.customer_name ?? s.customer}</Link>
      </dd>
      <dt>Amount</dt>
      <dd>{subscriptionAmount(s)}</dd>
      <DiscountFacts subscription={s} customerDiscount={customerDiscount} />
      <dt>Current period</dt>
      <dd>
        {s.current_period_start ? `${formatDate(s.current_period_start)} – ${formatDate(s.current_period_end)}` : '—'}
      </dd>
      <dt>Next invoice</dt>
      <dd>{formatDate(nextInvoiceDate(s))}</dd>
      <dt>Started</dt>
      <dd>{formatDate(s.start_date)}</dd>
      {s.trial_end && (
        <>
          <dt>Trial ends</dt>
          <dd>{formatDate(s.trial_end)}</dd>
        </>
      )}
      {s.paused_at && (
        <>
          <dt>Paused since</dt>
          <dd>{formatDateTime(s.paused_at)}</dd>
        </>
      )}
      {(s.cancel_at || s.cancel_at_period_end) && (
        <>
          <dt>Cancels</dt>
          <dd>{s.cancel_at ? formatDate(s.cancel_at) : 'at the end of the period'}</dd>
        </>
      )}
      {s.canceled_at && (
        <>
          <dt>Canceled</dt>
          <dd>{formatDateTime(s.canceled_at)}</dd>
        </>
      )}
      <dt>Created</dt>
      <dd>{formatDateTime(s.created)}</dd>
    </dl>
  );
}

/**
 * The discount its invoices take and what it takes off each period's items: the subscription's own, else its
 * customer's (docs/api.md, "Coupons and discounts"), rounded as an invoice rounds it (percent half up, an
 * amount up to the items' sum). Proration lines of a period are discounted too; this is the usual period.
 */
function DiscountFacts({
  subscription,
  customerDiscount,
}: {
  subscription: Subscription;
  customerDiscount: Discount | null;
}) {
  const discount = subscription.discount ?? customerDiscount;
  if (!discount) return null;
  const { coupon } = discount;
  const items = subscription.items.data.reduce((sum, item) => sum + item.price.unit_amount * item.quantity, 0);
  const off =
    coupon.percent_off !== null
      ? Math.floor((items * Math.round(coupon.percent_off * 100) * 2 + 10_000) / 20_000)
      : coupon.currency === subscription.currency
        ? Math.min(coupon.amount_off ?? 0, items)
        : 0;
  const lasts =
    coupon.duration === 'forever'
      ? 'every invoice'
      : coupon.duration === 'once'
        ? 'the next invoice only'
        : `invoices of periods starting before ${formatDate(discount.end)}`;
  return (
    <>
      <dt>Discount</dt>
      <dd>
        {coupon.name ?? coupon.id}: {couponTerms(coupon)}
        {discount.subscription === null && ' (the customer’s)'}
        <div className="muted small">
          Takes {formatMoney(off, subscription.currency)} off {formatMoney(items, subscription.currency)}, on {lasts}
        </div>
      </dd>
    </>
  );
}
