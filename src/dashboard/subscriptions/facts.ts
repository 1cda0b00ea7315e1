import type { Subscription } from '../api/types';
import { formatInterval, formatMoney } from '../components/format';

/** What a subscription bills each period, when its items share one interval (the usual case). */
export function subscriptionAmount(subscription: Subscription): string {
  const items = subscription.items.data;
  const total = items.reduce((sum, item) => sum + item.price.unit_amount * item.quantity, 0);
  const intervals = new Set(items.map((item) => formatInterval(item.price.recurring)));
  const money = formatMoney(total, subscription.currency);
  return intervals.size === 1 ? `${money} ${[...intervals][0]}` : money;
}

/** When the next invoice is due: the end of the current period while billing runs. */
export function nextInvoiceDate(subscription: Subscription): number | null {
  if (!['active', 'trialing', 'past_due', 'scheduled'].includes(subscription.status)) return null;
  if (subscription.cancel_at_period_end) return null;
  return subscription.current_period_end ?? subscription.start_date;
}

/** A change answers without names (include=names is a read's): the names on screen stay, the rest is the answer's. */
export function keepNames(shown: Subscription | undefined, updated: Subscription): Subscription {
  const productNames = new Map(shown?.items.data.map((item) => [item.price.id, item.price.product_name]));
  return {
    ...updated,
    customer_name: shown?.customer_name,
    items: {
      ...updated.items,
      data: updated.items.data.map((item) => ({
        ...item,
        price: { ...item.price, product_name: productNames.get(item.price.id) },
      })),
    },
  };
}
