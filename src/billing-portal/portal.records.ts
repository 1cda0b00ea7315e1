import type { BillingPortalSession } from '../generated/prisma/client';
import type { Db } from '../db/prisma';

export function insertPortalSession(
  prisma: Db,
  row: Omit<BillingPortalSession, 'createdAt'> & { createdAt: Date },
): Promise<BillingPortalSession> {
  return prisma.billingPortalSession.create({ data: row });
}

export function findPortalSessionByHash(prisma: Db, tokenHash: string): Promise<BillingPortalSession | null> {
  return prisma.billingPortalSession.findUnique({ where: { tokenHash } });
}

export async function readPortalSettings(prisma: Db, accountId: string): Promise<{ pauseResume: boolean }> {
  const row = await prisma.customerPortalSettings.findUnique({ where: { accountId } });
  return { pauseResume: row?.pauseResume ?? false };
}

export async function writePortalSettings(prisma: Db, accountId: string, pauseResume: boolean): Promise<void> {
  await prisma.customerPortalSettings.upsert({
    where: { accountId },
    create: { accountId, pauseResume },
    update: { pauseResume },
  });
}
