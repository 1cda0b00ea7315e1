import type { CreditNote, CreditNoteLine, Prisma } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';
import {
  idsAfterPositionStatement,
  readCreatedPosition,
  readRowsAfterPosition,
  type AnyTx,
  type ListPosition,
  type Statement,
} from '../db/sql';
import { allocateNumber } from '../invoices';

export type CreditNoteWithLines = CreditNote & { lines: CreditNoteLine[] };

const NEXT_CREDIT_NOTE_NUMBER: Statement = {
  name: 'credit_note_number_next',
  text: `INSERT INTO credit_note_number_counters (account_id, last_number) VALUES ($1, 1)
    ON CONFLICT (account_id) DO UPDATE SET last_number = credit_note_number_counters.last_number + 1
    RETURNING last_number`,
};

/**
 * The account's next credit note number (CN-000001), as invoice numbers are taken
 * (src/invoices/invoice-number.records.ts): one upsert on the counter row, given back by a rollback.
 */
export async function allocateCreditNoteNumber(tx: AnyTx, accountId: string): Promise<string> {
  return allocateNumber(tx, NEXT_CREDIT_NOTE_NUMBER, accountId, 'CN');
}

export async function insertCreditNote(
  tx: Tx,
  note: Omit<CreditNote, 'createdAt' | 'updatedAt' | 'updatedMs' | 'voidedAt'> & { createdAt: Date },
  lines: Omit<CreditNoteLine, 'creditNoteId'>[],
): Promise<CreditNoteWithLines> {
  return tx.creditNote.create({ data: { ...note, lines: { create: lines } }, include: { lines: true } });
}

export async function updateCreditNote(
  tx: Tx,
  id: string,
  change: Prisma.CreditNoteUpdateInput,
): Promise<CreditNoteWithLines> {
  return tx.creditNote.update({ where: { id }, data: change, include: { lines: true } });
}

/** The account's credit note; null when there is none (another account's too). */
export function findCreditNote(db: Db | Tx, accountId: string, id: string): Promise<CreditNoteWithLines | null> {
  return db.creditNote.findFirst({ where: { id, accountId }, include: { lines: true } });
}

/** The account's credit note `id`, or null. */
export async function creditNoteById(db: Db | Tx, accountId: string, id: string): Promise<CreditNoteWithLines | null> {
  return db.creditNote.findFirst({ where: { id, accountId }, include: { lines: true } });
}

/** The account's credit note whose card refund is the entry `transactionId`, or null. */
export function creditNoteByTransaction(
  db: Db | Tx,
  accountId: string,
  transactionId: string,
): Promise<CreditNote | null> {
  return db.creditNote.findFirst({ where: { accountId, transactionId } });
}

/** The account's credit note numbered `number` (its unique index answers), or null. */
export async function creditNoteByNumber(
  db: Db | Tx,
  accountId: string,
  number: string,
): Promise<CreditNoteWithLines | null> {
  return db.creditNote.findFirst({ where: { accountId, number }, include: { lines: true } });
}

export interface CreditNoteFilter {
  invoiceId?: string;
  customerId?: string;
}

/** A page of the account's credit notes, newest first, at an offset. */
export function readCreditNotePage(
  db: Db,
  accountId: string,
  filter: CreditNoteFilter,
  window: { skip: number; take: number },
): Promise<CreditNoteWithLines[]> {
  return db.creditNote.findMany({
    where: { accountId, ...filter },
    include: { lines: true },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    ...window,
  });
}

export function countCreditNotes(db: Db, accountId: string, filter: CreditNoteFilter): Promise<number> {
  return db.creditNote.count({ where: { accountId, ...filter } });
}

/** `take` of the account's credit notes after (`forward`) or before `at`, in the list's order read that way (docs/decisions.md §36). */
export async function readCreditNotesAfter(
  db: Db,
  accountId: string,
  filter: CreditNoteFilter,
  window: { at: ListPosition; forward: boolean; take: number },
): Promise<CreditNoteWithLines[]> {
  const columns: [string, unknown][] = [
    ['account_id', accountId],
    ['invoice_id', filter.invoiceId],
    ['customer_id', filter.customerId],
  ];
  return readRowsAfterPosition(db, idsAfterPositionStatement('credit_notes', columns, window), (ids) =>
    db.creditNote.findMany({ where: { accountId, id: { in: ids } }, include: { lines: true } }),
  );
}

/** Where a credit note of the account sits in the list, or null (unknown, or another account's). */
export function readCreditNotePosition(db: Db, accountId: string, id: string): Promise<ListPosition | null> {
  return readCreatedPosition(db, 'credit_notes', accountId, id);
}

/** Cents credited so far on each line of the invoice by its issued credit notes. */
export async function creditedPerLine(tx: Tx, accountId: string, invoiceId: string): Promise<Map<string, bigint>> {
  const rows = await tx.creditNoteLine.groupBy({
    by: ['invoiceLineId'],
    where: { accountId, invoiceLineId: { not: null }, creditNote: { invoiceId, status: 'issued' } },
    _sum: { amount: true },
  });
  return new Map(rows.map((row) => [row.invoiceLineId!, row._sum.amount ?? 0n]));
}
