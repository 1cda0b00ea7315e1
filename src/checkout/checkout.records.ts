import type { CheckoutSession, Prisma } from '../generated/prisma/client';
import { MINUTE_MS } from '../lib/durations';
import type { Db } from '../db/prisma';

export function insertCheckoutSession(
  prisma: Db,
  data: Prisma.CheckoutSessionUncheckedCreateInput,
): Promise<CheckoutSession> {
  return prisma.checkoutSession.create({ data });
}

export function findCheckoutByHash(prisma: Db, tokenHash: string): Promise<CheckoutSession | null> {
  return prisma.checkoutSession.findUnique({ where: { tokenHash } });
}

export function findCheckout(prisma: Db, accountId: string, id: string): Promise<CheckoutSession | null> {
  return prisma.checkoutSession.findFirst({ where: { id, accountId } });
}

/** A claim older than this is taken over: the request that made it died (docs/api.md "Hosted pages"). */
export const CLAIM_TAKEOVER_MS = MINUTE_MS;

/**
 * Claims an open session for one completion (open -> completing); false when another request holds a
 * live claim or the session is complete. One UPDATE, so two tabs cannot both claim it.
 */
export async function claimCheckout(prisma: Db, id: string): Promise<boolean> {
  const now = new Date(); // a claim is a lease of the request holding it: the wall clock
  const { count } = await prisma.checkoutSession.updateMany({
    where: {
      id,
      OR: [
        { status: 'open' },
        { status: 'completing', claimedAt: { lt: new Date(now.getTime() - CLAIM_TAKEOVER_MS) } },
      ],
    },
    data: { status: 'completing', claimedAt: now },
  });
  return count === 1;
}

export function updateCheckout(
  prisma: Db,
  id: string,
  data: Pick<
    Prisma.CheckoutSessionUncheckedUpdateInput,
    'status' | 'customerId' | 'subscriptionId' | 'invoiceId' | 'completedAt' | 'claimedAt'
  >,
): Promise<CheckoutSession> {
  return prisma.checkoutSession.update({ where: { id }, data });
}
