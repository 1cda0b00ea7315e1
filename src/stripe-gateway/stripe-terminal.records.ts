import type { Db } from '../db/prisma';

/** The account's Stripe Terminal Location in one mode, or null: none made yet. */
export async function readTerminalLocationId(db: Db, accountId: string, livemode: boolean): Promise<string | null> {
  const row = await db.stripeTerminalLocation.findUnique({
    where: { accountId_livemode: { accountId, livemode } },
    select: { locationId: true },
  });
  return row?.locationId ?? null;
}

/** Keeps the first Location written for the account and mode and answers it (two registrations racing share it). */
export async function keepTerminalLocationId(
  db: Db,
  accountId: string,
  livemode: boolean,
  locationId: string,
): Promise<string> {
  await db.stripeTerminalLocation.createMany({ data: [{ accountId, livemode, locationId }], skipDuplicates: true });
  return (await readTerminalLocationId(db, accountId, livemode))!;
}
