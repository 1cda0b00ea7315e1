// The documents module's public face: what other modules use of it (written by scripts/module-faces.ts;
// docs/architecture.md, "Modules"). Files that load no other module's index.ts come first.
export { creditDestination } from './credit-note-document';
export {
  addressLines,
  billToLines,
  documentDate,
  money,
  pricingDetails,
  sellerLines,
  shipToLines,
  summaryRows,
  unitPrice,
} from './invoice-document';
export type { InvoiceDocument, SummaryRow } from './invoice-document';
export { renderInvoicePdf } from './invoice-pdf';
export { creditNotePdf } from './credit-note-document.service';
export { invoicePdf, loadInvoiceDocument, receiptPdf } from './invoice-document.service';
export { registerDocumentRoutes } from './document.routes';
