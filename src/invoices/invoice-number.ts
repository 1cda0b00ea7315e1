import type { Tx } from '../db/prisma';

/**
 * The next invoice number of the account, taken with one upsert on the counter row: the row lock
 * serialises concurrent finalizations, and a rolled-back transaction gives its number back.
 */
export async function allocateInvoiceNumber(tx: Tx, accountId: string): Promise<string> {
  const [row] = await tx.$queryRaw<{ last_number: number }[]>`
    INSERT INTO invoice_number_counters (account_id, last_number) VALUES (${accountId}, 1)
    ON CONFLICT (account_id) DO UPDATE SET last_number = invoice_number_counters.last_number + 1
    RETURNING last_number`;
  return `INV-${String(row!.last_number).padStart(6, '0')}`;
}
