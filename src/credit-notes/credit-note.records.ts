import type { CreditNote, CreditNoteLine, Prisma } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';
import { type AnyTx, type Statement } from '../db/sql';
import { newestFirstList } from '../db/newest-first-list';
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

/** The account's credit notes with their lines, newest first (GET /credit-notes). */
export const creditNoteList = newestFirstList<CreditNoteWithLines, CreditNoteFilter>({
  table: 'credit_notes',
  columns: { invoiceId: 'invoice_id', customerId: 'customer_id' },
  findMany: (db, read) => db.creditNote.findMany({ ...read, include: { lines: true } }),
  count: (db, where) => db.creditNote.count({ where }),
});

/** Cents credited so far on each line of the invoice by its issued credit notes. */
export async function creditedPerLine(tx: Tx, accountId: string, invoiceId: string): Promise<Map<string, bigint>> {
  const rows = await tx.creditNoteLine.groupBy({
    by: ['invoiceLineId'],
    where: { accountId, invoiceLineId: { not: null }, creditNote: { invoiceId, status: 'issued' } },
    _sum: { amount: true },
  });
  return new Map(rows.map((row) => [row.invoiceLineId!, row._sum.amount ?? 0n]));
}
