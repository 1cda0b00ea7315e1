import { queryRows, type AnyTx, type Statement } from '../db/sql';

const NEXT_INVOICE_NUMBER: Statement = {
  name: 'invoice_number_next',
  text: `INSERT INTO invoice_number_counters (account_id, last_number) VALUES ($1, 1)
    ON CONFLICT (account_id) DO UPDATE SET last_number = invoice_number_counters.last_number + 1
    RETURNING last_number`,
};

/**
 * The next invoice number of the account, taken with one upsert on the counter row: the row lock
 * serialises concurrent finalizations, and a rolled-back transaction gives its number back.
 */
export async function allocateInvoiceNumber(tx: AnyTx, accountId: string): Promise<string> {
  return allocateNumber(tx, NEXT_INVOICE_NUMBER, accountId, 'INV');
}

/** The next number of an account's counter `next` (an upsert answering `last_number`), as `<prefix>-000001`. */
export async function allocateNumber(tx: AnyTx, next: Statement, accountId: string, prefix: string): Promise<string> {
  const [row] = await queryRows<{ last_number: number }>(tx, next, [accountId]);
  return `${prefix}-${String(row!.last_number).padStart(6, '0')}`;
}
