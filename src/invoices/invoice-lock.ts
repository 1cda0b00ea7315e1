import type { AnyTx } from '../db/sql';
import { orNotFound } from '../http/errors';
import {
  lockInvoiceRow,
  lockInvoiceRowForPayment,
  type InvoiceLockedForPayment,
  type InvoiceWithLines,
} from './invoice.records';

/** The account's invoice, locked until the caller's transaction ends (lockInvoiceRow), or 404 naming it. */
export async function lockInvoice(tx: AnyTx, accountId: string, id: string): Promise<InvoiceWithLines> {
  return orNotFound(await lockInvoiceRow(tx, accountId, id), 'invoice', id);
}

/** lockInvoice for a payment's outcome: with its lines' prices not billed yet (lockInvoiceRowForPayment), or 404. */
export async function lockInvoiceForPayment(
  tx: AnyTx,
  accountId: string,
  id: string,
): Promise<InvoiceLockedForPayment> {
  return orNotFound(await lockInvoiceRowForPayment(tx, accountId, id), 'invoice', id);
}
