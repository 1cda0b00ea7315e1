import type { Db } from '../db/prisma';

/** The Stripe customer of a service customer in one mode, or null: none made yet. */
export async function readStripeCustomerId(
  db: Db,
  accountId: string,
  customerId: string,
  livemode: boolean,
): Promise<string | null> {
  const row = await db.stripeCustomer.findUnique({
    where: { accountId_customerId_livemode: { accountId, customerId, livemode } },
    select: { stripeCustomerId: true },
  });
  return row?.stripeCustomerId ?? null;
}

/**
 * Keeps the first Stripe customer written for a service customer and answers it: two attaches racing
 * each made one at Stripe, and both then use the one kept (the other stays empty at Stripe).
 */
export async function keepStripeCustomerId(
  db: Db,
  accountId: string,
  customerId: string,
  livemode: boolean,
  stripeCustomerId: string,
): Promise<string> {
  await db.stripeCustomer.createMany({
    data: [{ accountId, customerId, livemode, stripeCustomerId }],
    skipDuplicates: true,
  });
  return (await readStripeCustomerId(db, accountId, customerId, livemode))!;
}
