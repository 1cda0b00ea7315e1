import type { Prisma, Terminal, TerminalSale } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';

/** A terminal of the account, or null (also for another account's terminal). */
export function findTerminalRow(db: Db | Tx, accountId: string, id: string): Promise<Terminal | null> {
  return db.terminal.findFirst({ where: { id, accountId } });
}

export function insertTerminal(db: Db, data: Prisma.TerminalUncheckedCreateInput): Promise<Terminal> {
  return db.terminal.create({ data });
}

/** The page at an offset of the account's terminals, newest first, with how many it has. */
export async function readTerminalPage(
  db: Db,
  accountId: string,
  window: { skip: number; take: number },
): Promise<[Terminal[], number]> {
  const where = { accountId };
  return Promise.all([
    db.terminal.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], ...window }),
    db.terminal.count({ where }),
  ]);
}

export function readTerminalSale(db: Db | Tx, id: string): Promise<TerminalSale | null> {
  return db.terminalSale.findUnique({ where: { id } });
}

/** The outcome the simulated processor recorded for a sale whose report it lost, or null. */
export async function readSaleProcessorOutcome(db: Db | Tx, saleId: string): Promise<string | null> {
  const sale = await db.terminalSale.findUnique({ where: { id: saleId }, select: { processorOutcome: true } });
  return sale?.processorOutcome ?? null;
}

/** Asks the terminal to cancel sale `id` (its next poll reads it). */
export async function requestSaleCancel(tx: Tx, id: string, at: Date): Promise<void> {
  await tx.terminalSale.update({ where: { id }, data: { cancelRequestedAt: at }, select: { id: true } });
}

/** Takes the terminal for sale `saleId`; false when another sale holds it. */
export async function claimTerminal(tx: Tx, terminalId: string, saleId: string): Promise<boolean> {
  const taken = await tx.terminal.updateMany({
    where: { id: terminalId, currentSaleId: null },
    data: { currentSaleId: saleId },
  });
  return taken.count > 0;
}

/** Lets go of the terminal sale `saleId` held, if it still holds it. */
export async function releaseTerminal(tx: Tx, terminalId: string, saleId: string): Promise<void> {
  await tx.terminal.updateMany({ where: { id: terminalId, currentSaleId: saleId }, data: { currentSaleId: null } });
}

export function insertTerminalSale(tx: Tx, data: Prisma.TerminalSaleUncheckedCreateInput): Promise<TerminalSale> {
  return tx.terminalSale.create({ data });
}

/** Writes `data` to sale `id`. */
export async function updateTerminalSale(
  tx: Tx,
  id: string,
  data: Prisma.TerminalSaleUncheckedUpdateInput,
): Promise<void> {
  await tx.terminalSale.update({ where: { id }, data, select: { id: true } });
}

/** Sale `id`, which exists (a terminal's current sale, a payment's). */
export function readSaleRow(db: Db | Tx, id: string): Promise<TerminalSale> {
  return db.terminalSale.findUniqueOrThrow({ where: { id } });
}

/** The account's sale (by id or the processor's reference) with its terminal, or null (also for another account's sale). */
export function findSaleWithTerminal(
  db: Db | Tx,
  accountId: string,
  sale: string | { id: string } | { processorReference: string },
): Promise<(TerminalSale & { terminal: Terminal }) | null> {
  const where = typeof sale === 'string' ? { id: sale } : sale;
  return db.terminalSale.findFirst({ where: { ...where, accountId }, include: { terminal: true } });
}
