import type { ApiClient } from './harness';
import { expectStatus, recurringPrice } from './subscriptions';

// Meters and metered prices for the usage tests (docs/api.md "Usage-based billing").

const monthly = { interval: 'month', interval_count: 1 };
let meterCounter = 0;

/** A meter summing `tokens` of its own event name, and a metered price on it (`terms`: its scheme). */
export async function meteredPrice(client: ApiClient, terms: Record<string, unknown> = { unit_amount: 3 }) {
  meterCounter += 1;
  const eventName = `tokens_${meterCounter}`;
  const meter = expectStatus(
    await client.post('/meters', {
      name: 'Tokens',
      event_name: eventName,
      aggregation: 'sum',
      value_property: 'tokens',
    }),
    201,
  );
  // The product of a new licensed price (support's helper): the metered price is a second price of it.
  const productId = expectStatus(
    await client.get(`/prices/${await recurringPrice(client, { unitAmount: 1 })}`),
    200,
  ).product;
  const price = await priceOnMeter(client, productId, meter.id, terms);
  return { eventName, meter, price, productId };
}

/** A metered price of `productId` counting `meterId`, with `terms` (its scheme). */
export async function priceOnMeter(
  client: ApiClient,
  productId: string,
  meterId: string,
  terms: Record<string, unknown>,
) {
  const price = expectStatus(
    await client.post(`/prices/${productId}`, {
      currency: 'USD',
      type: 'recurring',
      recurring: { ...monthly, usage_type: 'metered', meter: meterId },
      ...terms,
    }),
    201,
  );
  return price.id as string;
}
