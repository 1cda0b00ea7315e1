import type { Terminal } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';
import { ApiError, notFound } from '../http/errors';
import { pageEnvelope, pageWindow, type Page, type PageParams } from '../http/pagination';
import { newId } from '../lib/ids';
import { toUnixSeconds } from '../lib/time';
import { terminalProcessorFor } from './terminal-processor';
import type { CreateTerminalInput, TerminalObject } from './terminal.schemas';
import { findTerminalRow, insertTerminal, readTerminalPage, readTerminalSale } from './terminal.records';

/** A terminal of the account, or 404 naming `param` (also for another account's terminal). */
export async function findTerminal(db: Db | Tx, accountId: string, id: string, param = 'id'): Promise<Terminal> {
  const terminal = await findTerminalRow(db, accountId, id);
  if (!terminal) {
    const missing = notFound('terminal', id);
    throw new ApiError('not_found', missing.code, missing.message, param);
  }
  return terminal;
}

async function toTerminalObject(db: Db | Tx, terminal: Terminal): Promise<TerminalObject> {
  const sale = terminal.currentSaleId ? await readTerminalSale(db, terminal.currentSaleId) : null;
  return {
    id: terminal.id,
    object: 'terminal',
    label: terminal.label,
    status: sale ? 'busy' : 'idle',
    current_sale: sale
      ? {
          id: sale.id,
          payment: sale.paymentId,
          amount: Number(sale.amount),
          currency: sale.currency,
          cancel_requested: sale.cancelRequestedAt !== null,
          created: toUnixSeconds(sale.createdAt),
        }
      : null,
    created: toUnixSeconds(terminal.createdAt),
  };
}

export async function createTerminal(
  prisma: Db,
  accountId: string,
  input: CreateTerminalInput,
): Promise<TerminalObject> {
  const id = newId('terminal');
  const processor = await terminalProcessorFor(prisma, accountId);
  const readerId = await processor.registerReader({
    terminalId: id,
    label: input.label,
    ...(input.registration_code ? { registrationCode: input.registration_code } : {}),
  });
  const terminal = await insertTerminal(prisma, { id, accountId, label: input.label, readerId });
  return toTerminalObject(prisma, terminal);
}

export async function getTerminal(prisma: Db, accountId: string, id: string): Promise<TerminalObject> {
  return toTerminalObject(prisma, await findTerminal(prisma, accountId, id));
}

export async function listTerminals(prisma: Db, accountId: string, page: PageParams): Promise<Page<TerminalObject>> {
  const [rows, total] = await readTerminalPage(prisma, accountId, pageWindow(page));
  return pageEnvelope(await Promise.all(rows.map((row) => toTerminalObject(prisma, row))), total, page);
}
