import { Prisma } from '../generated/prisma/client';
import type { Db } from '../db/prisma';

export interface ProcessorEventRow {
  accountId: string;
  processor: string;
  eventId: string;
  type: string;
  livemode: boolean;
  objectId: string | null;
  outcome: 'recorded' | 'ignored';
  payload: object;
}

/** Keeps the event once per (account, processor, event id); false: it was kept already (a redelivery). */
export async function insertProcessorEvent(db: Db, row: ProcessorEventRow): Promise<boolean> {
  const { count } = await db.processorEvent.createMany({
    data: [{ ...row, payload: row.payload as Prisma.InputJsonValue }],
    skipDuplicates: true,
  });
  return count === 1;
}

/** The account's events, newest first (tests and operators; the API does not list them). */
export function readProcessorEvents(db: Db, accountId: string, take = 100) {
  return db.processorEvent.findMany({ where: { accountId }, orderBy: { receivedAt: 'desc' }, take });
}
