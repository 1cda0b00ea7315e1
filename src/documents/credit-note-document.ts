import type { CreditNoteObject } from '../credit-notes';
import { documentDate, money, type InvoiceDocument, type SummaryRow } from './invoice-document';

/**
 * Everything a credit note's document shows: the credit note as the API answers it, the invoice it
 * credits (its number and the customer as billed), and who issues it. Pure data, as InvoiceDocument.
 */
export interface CreditNoteDocument {
  note: CreditNoteObject;
  invoice: InvoiceDocument['invoice'];
  account: InvoiceDocument['account'];
}

const REASONS: Record<CreditNoteObject['reason'], string> = {
  duplicate: 'Duplicate',
  fraudulent: 'Fraudulent',
  order_change: 'Order change',
  product_unsatisfactory: 'Product unsatisfactory',
};

/** Where the credit went, in the reader's words (docs/decisions.md §22: by the invoice's state and refund_to). */
export function creditDestination(note: Pick<CreditNoteObject, 'type' | 'refund_to'>): string {
  if (note.type === 'pre_payment') return "Deducted from the invoice's amount due";
  switch (note.refund_to) {
    case 'card':
      return 'Refunded to the card that paid the invoice';
    case 'customer_balance':
      return "Credited to the customer's balance, for their next invoices";
    default:
      return 'Given back outside this service';
  }
}

/** Number, date, the invoice credited, reason, where the money went, and the memo. */
export function creditNoteFacts(document: CreditNoteDocument): { label: string; value: string }[] {
  const { note, invoice } = document;
  return [
    { label: 'Credit note number', value: note.number },
    { label: 'Date of issue', value: documentDate(document, note.created) },
    { label: 'Invoice credited', value: invoice.number ?? invoice.id },
    { label: 'Invoice date', value: documentDate(document, invoice.status_transitions.finalized_at) },
    { label: 'Reason', value: REASONS[note.reason] },
    { label: 'Where it went', value: creditDestination(note) },
    ...(note.status === 'void'
      ? [{ label: 'Status', value: `Void${note.voided_at ? ` since ${documentDate(document, note.voided_at)}` : ''}` }]
      : []),
    ...(note.memo ? [{ label: 'Memo', value: note.memo }] : []),
  ];
}

/** The amounts: the invoice's total and this credit, then what the invoice still owes or has left. */
export function creditNoteSummary(document: CreditNoteDocument): SummaryRow[] {
  const { note, invoice } = document;
  return [
    { label: `Invoice ${invoice.number ?? ''} total`, amount: money(document, invoice.total) },
    { label: 'Credited by this note (tax included)', amount: money(document, note.amount), strong: true },
    ...(note.type === 'pre_payment' && note.status === 'issued'
      ? [{ label: 'Invoice amount due now', amount: money(document, invoice.amount_remaining) }]
      : []),
  ];
}
