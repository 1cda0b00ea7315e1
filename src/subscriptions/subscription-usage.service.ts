import type { Db } from '../db/prisma';
import { orNotFound } from '../http/errors';
import { currentTime } from '../lib/clock-time';
import { DAY_MS } from '../lib/durations';
import { toUnixSeconds } from '../lib/time';
import { readPrices } from '../catalog';
import { isMeteredPrice, pricingOf } from '../catalog';
import { usageBilledFrom } from '../invoices';
import { clockBindingOfColumns } from '../test-clocks';
import { priceQuantity } from '../usage';
import { meterWindows } from '../usage';
import { findSubscriptionRowAndClock } from './subscription.records';
import type { SubscriptionUsageObject } from './subscription.schemas';

/**
 * GET /subscriptions/{id}/usage (docs/decisions.md §43): each metered item's usage over the period the next
 * invoice closes, [current_period_start, now), now being the customer's time (its test clock's); its total
 * priced as that invoice will price it, what early (threshold) invoices already billed of it and what is left, and its
 * aggregation per 24 hours from the period's start. 404 for
 * another account's subscription. A subscription without a current period answers no items.
 */
export async function subscriptionUsage(prisma: Db, accountId: string, id: string): Promise<SubscriptionUsageObject> {
  const { row, testClock } = orNotFound(await findSubscriptionRowAndClock(prisma, accountId, id), 'subscription', id);
  const clock = testClock ? clockBindingOfColumns(testClock) : null;
  const now = clock?.time ?? currentTime().getTime();
  const from = row.currentPeriodStart?.getTime() ?? now;
  const to = Math.max(from, Math.min(now, row.currentPeriodEnd?.getTime() ?? now));
  const prices = await readPrices(prisma, accountId, [...new Set(row.items.map((item) => item.priceId))]);
  const byId = new Map(prices.map((price) => [price.id, price]));
  const items: SubscriptionUsageObject['items'] = [];
  for (const item of row.items) {
    const price = byId.get(item.priceId);
    const meter = price?.recurring?.meter;
    if (!price || !isMeteredPrice(price) || !meter || to <= from) continue;
    const range = { from: new Date(from), to: new Date(to) };
    const [whole, days] = await Promise.all([
      meterWindows(prisma, accountId, meter, row.customerId, range),
      meterWindows(prisma, accountId, meter, row.customerId, { ...range, windowMs: DAY_MS }),
    ]);
    const total = whole.values[0] ?? 0;
    const amount = priceQuantity(pricingOf(price), total).amount;
    // Early invoices bill price(to date) - price(billed before), so together they billed price(what they billed):
    // the period's invoice bills the rest the same way (docs/decisions.md §43, "Billing thresholds").
    const billedQuantity = await usageBilledFrom(prisma, accountId, row.id, price.id, range.from);
    const billed = { quantity: billedQuantity, amount: priceQuantity(pricingOf(price), billedQuantity).amount };
    items.push({
      subscription_item: item.id,
      price: price.id,
      meter,
      aggregation: whole.aggregation,
      total,
      amount,
      billed,
      unbilled: { quantity: total - billed.quantity, amount: amount - billed.amount },
      daily: days.values.map((value, index) => ({
        start: toUnixSeconds(new Date(from + index * DAY_MS)),
        end: toUnixSeconds(new Date(Math.min(to, from + (index + 1) * DAY_MS))),
        value,
      })),
    });
  }
  return {
    object: 'subscription_usage',
    subscription: row.id,
    period: { start: toUnixSeconds(new Date(from)), end: toUnixSeconds(new Date(to)) },
    items,
  };
}
