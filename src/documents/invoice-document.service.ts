import type { Db, Tx } from '../db/prisma';
import { readAccountProfile } from '../accounts';
import { readTaxRates } from '../catalog';
import { readCustomerEvenDeleted } from '../customers';
import { conflict } from '../http/errors';
import { findInvoice, toInvoiceObject } from '../invoices';
import type { InvoiceObject } from '../invoices';
import { sellerLines, type InvoiceDocument } from './invoice-document';
import { renderInvoicePdf } from './invoice-pdf';

/** Tax rates are stored in parts per million of the amount (prisma/schema/catalog.prisma). */
const PPM_PER_PERCENT = 10_000;

/** "Sales tax 8.25%": the rate's display name with its percentage, unless the name says it already. */
function taxRateName(rate: { displayName: string; ratePpm: number }): string {
  const percentage = `${rate.ratePpm / PPM_PER_PERCENT}%`;
  return rate.displayName.includes(percentage) ? rate.displayName : `${rate.displayName} ${percentage}`;
}

/** Who issues a document about `invoice`: the name and seller's lines the invoice was issued under, the account's time zone and From address. */
export async function documentIssuer(
  db: Db | Tx,
  accountId: string,
  invoice: InvoiceObject,
): Promise<InvoiceDocument['account']> {
  const account = await readAccountProfile(db, accountId);
  return {
    name: invoice.account_name ?? account?.name ?? '',
    timeZone: account?.timeZone ?? 'UTC',
    email: account?.emailFrom ?? null,
    lines: sellerLines(invoice),
  };
}

/**
 * The document of a finalized invoice of the account: 404 for an unknown invoice or another
 * account's, 409 `invoice_not_finalized` for a draft (or a draft voided before it had a number):
 * a draft has no number and may still change (docs/api.md, "Invoice PDF").
 */
export async function loadInvoiceDocument(db: Db | Tx, accountId: string, invoiceId: string): Promise<InvoiceDocument> {
  const row = await findInvoice(db, accountId, invoiceId);
  if (row.number === null)
    throw conflict(
      `Invoice ${invoiceId} is ${row.status === 'draft' ? 'a draft' : 'void and was never finalized'}; only a finalized invoice has a document.`,
      'invoice_not_finalized',
    );
  const invoice = toInvoiceObject(row);
  const [account, customer, taxRates] = await Promise.all([
    documentIssuer(db, accountId, invoice),
    readCustomerEvenDeleted(db, accountId, invoice.customer),
    readTaxRates(db, accountId, [...new Set(invoice.total_tax_amounts.map((tax) => tax.tax_rate))]),
  ]);
  return {
    invoice,
    account,
    shipping: (customer?.shipping as InvoiceDocument['shipping'] | null) ?? null,
    taxRateNames: Object.fromEntries(taxRates.map((rate) => [rate.id, taxRateName(rate)])),
  };
}

/** GET /invoices/{id}/pdf: the finalized invoice's PDF and the file name it is offered under. */
export async function invoicePdf(
  db: Db,
  accountId: string,
  invoiceId: string,
): Promise<{ pdf: Buffer; filename: string }> {
  const document = await loadInvoiceDocument(db, accountId, invoiceId);
  return { pdf: await renderInvoicePdf(document), filename: `${document.invoice.number}.pdf` };
}

/**
 * The receipt of a paid invoice (the hosted invoice page's "Download the receipt"): its document titled
 * Receipt; 409 `invoice_not_paid` before it is paid.
 */
export async function receiptPdf(
  db: Db,
  accountId: string,
  invoiceId: string,
): Promise<{ pdf: Buffer; filename: string }> {
  const document = await loadInvoiceDocument(db, accountId, invoiceId);
  if (document.invoice.status !== 'paid')
    throw conflict(
      `Invoice ${invoiceId} is ${document.invoice.status}: a receipt exists once it is paid.`,
      'invoice_not_paid',
    );
  return { pdf: await renderInvoicePdf(document, 'receipt'), filename: `Receipt-${document.invoice.number}.pdf` };
}
