import type { Price, Subscription } from '../api/types';
import { formatInterval, formatMoney } from './format';

/**
 * How the dashboard names what the API names by id (docs/api.md, "Names on list rows"): the lists ask with
 * `include=names`, and the ids stay on screen as secondary, copyable text.
 */

/** A price by its product's name, with the price's own description when it has one; the description alone without the product's. */
export function priceName(price: Price): string {
  if (price.product_name && price.description) return `${price.product_name} (${price.description})`;
  return price.product_name ?? price.description ?? 'Price';
}

/** "Pro (Annual) · $490.00 per year": a price as a picker lists it. */
export function priceLabel(price: Price): string {
  return `${priceName(price)} · ${formatMoney(price.unit_amount, price.currency)} ${formatInterval(price.recurring)}`;
}

/** A subscription by what it sells: its items' product names, each once ("Pro + Extra seats"). */
export function subscriptionTitle(subscription: Subscription): string {
  const names = [...new Set(subscription.items.data.map((item) => priceName(item.price)))];
  return names.length > 0 && names.some((name) => name !== 'Price') ? names.join(' + ') : 'Subscription';
}
