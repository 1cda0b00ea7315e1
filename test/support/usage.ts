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

/** Graduated tiers the usage tests price through: 5 up to 1000, then 3 with a flat 1000 up to 10,000, then 1. */
export const TIERS = [
  { up_to: 1000, unit_amount: 5 },
  { up_to: 10_000, unit_amount: 3, flat_amount: 1000 },
  { up_to: 'inf', unit_amount: 1 },
];

/** The graduated TIERS' price of `quantity`, unit by unit, written again here (not the service's function). */
export function graduatedCents(quantity: number): number {
  let cents = quantity > 1000 ? 1000 : 0;
  for (let unit = 1; unit <= quantity; unit++) cents += unit <= 1000 ? 5 : unit <= 10_000 ? 3 : 1;
  return cents;
}
