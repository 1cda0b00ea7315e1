import type { Db } from '../db/prisma';
import { getCreditNote } from '../credit-notes';
import { findInvoice, toInvoiceObject } from '../invoices';
import type { CreditNoteDocument } from './credit-note-document';
import { renderCreditNotePdf } from './credit-note-pdf';
import { documentIssuer } from './invoice-document.service';

/** The document of the account's credit note: 404 for an unknown one or another account's. */
export async function loadCreditNoteDocument(db: Db, accountId: string, id: string): Promise<CreditNoteDocument> {
  const note = await getCreditNote(db, accountId, id);
  const invoice = toInvoiceObject(await findInvoice(db, accountId, note.invoice));
  return { note, invoice, account: await documentIssuer(db, accountId, invoice) };
}

/** GET /credit-notes/{id}/pdf: the credit note's PDF and the file name it is offered under. */
export async function creditNotePdf(db: Db, accountId: string, id: string): Promise<{ pdf: Buffer; filename: string }> {
  const document = await loadCreditNoteDocument(db, accountId, id);
  return { pdf: await renderCreditNotePdf(document), filename: `${document.note.number}.pdf` };
}
