import type { Db } from '../../src/db/prisma';
import { newId } from '../../src/lib/ids';
import { markPricesBilled } from '../../src/catalog/price.service';
import type { ApiClient } from './harness';

export const oneTimePrice = { currency: 'USD', unit_amount: 1500, type: 'one_time' } as const;
export const monthlyPrice = {
  currency: 'USD',
  unit_amount: 2000,
  type: 'recurring',
  recurring: { interval: 'month', interval_count: 1 },
} as const;

let productCounter = 0;

/** A product (with its first price) created over HTTP; names are unique per call. */
export async function createProduct(api: ApiClient, body: Record<string, unknown> = {}) {
  productCounter += 1;
  const response = await api.post('/products', {
    name: `Product ${productCounter} ${Date.now()}`,
    ...oneTimePrice,
    ...body,
  });
  if (response.status !== 201)
    throw new Error(`POST /products answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body;
}

/**
 * Attaches a price to a subscription by writing the rows directly: the subscriptions API arrives in a
 * later issue, and the catalog's rules ("a subscription uses the price") only read these tables.
 */
export async function attachToSubscription(prisma: Db, accountId: string, priceId: string): Promise<string> {
  const subscriptionId = newId('subscription');
  const now = new Date();
  await prisma.subscription.create({
    data: {
      id: subscriptionId,
      accountId,
      customerId: 'cus_test',
      status: 'active',
      currency: 'USD',
      interval: 'month',
      intervalCount: 1,
      billingCycleAnchor: now,
      startDate: now,
      items: { create: [{ id: newId('subscriptionItem'), accountId, priceId, quantity: 1 }] },
    },
  });
  return subscriptionId;
}

/** Bills prices through the one internal function the invoicing code calls. */
export function billPrices(prisma: Db, accountId: string, priceIds: string[]): Promise<string[]> {
  return prisma.$transaction((tx) => markPricesBilled(tx, accountId, priceIds));
}
