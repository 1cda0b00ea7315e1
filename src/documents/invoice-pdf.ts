import {
  billToLines,
  documentDate,
  headlineFacts,
  money,
  pricingDetails,
  shipToLines,
  summaryRows,
  unitPrice,
  type InvoiceDocument,
} from './invoice-document';
import { drawBlocks, drawFacts, drawHeader, drawHeadline, drawSummary, drawTable, renderPdf } from './pdf-layout';

/**
 * The invoice as a PDF (A4), drawn with pdfkit: no browser in production (docs/decisions.md §30 and
 * docs/performance.md, "Invoice PDF"), in the layout the credit note shares (src/documents/pdf-layout.ts).
 */
export function renderInvoicePdf(document: InvoiceDocument, kind: 'invoice' | 'receipt' = 'invoice'): Promise<Buffer> {
  const { invoice } = document;
  return renderPdf(
    {
      Title: `${kind === 'receipt' ? 'Receipt for invoice' : 'Invoice'} ${invoice.number ?? invoice.id}`,
      Author: document.account.name,
      Subject: `Invoice for ${invoice.customer_name ?? invoice.customer}`,
    },
    (pdf) => draw(pdf, document, kind),
  );
}

/** The receipt is the paid invoice's document under its own title: the same facts, lines and amounts. */
function draw(pdf: PDFKit.PDFDocument, document: InvoiceDocument, kind: 'invoice' | 'receipt'): void {
  const { invoice } = document;
  let y = drawHeader(
    pdf,
    kind === 'receipt' ? 'Receipt' : invoice.status === 'void' ? 'Invoice (void)' : 'Invoice',
    document.account,
  );
  y = drawFacts(pdf, headlineFacts(document), y);
  y = drawBlocks(
    pdf,
    [
      ['Bill to', billToLines(document)],
      ['Ship to', shipToLines(document)],
    ],
    y + 16,
  );
  // The amount due, large, as the reader looks for it first.
  y = drawHeadline(
    pdf,
    invoice.status === 'paid'
      ? `${money(document, invoice.amount_paid)} paid${invoice.status_transitions.paid_at ? ` on ${documentDate(document, invoice.status_transitions.paid_at)}` : ''}`
      : `${money(document, invoice.amount_remaining)} due${invoice.due_date ? ` by ${documentDate(document, invoice.due_date)}` : ''}`,
    y + 6,
  );
  y = drawTable(
    pdf,
    [
      { title: 'Description', start: 0, share: 0.54 },
      { title: 'Qty', start: 0.55, share: 0.09, align: 'right' },
      { title: 'Unit price', start: 0.65, share: 0.16, align: 'right' },
      { title: 'Amount', start: 0.82, share: 0.18, align: 'right' },
    ],
    invoice.lines.map((line) => ({
      cells: [
        line.description ?? '',
        String(line.quantity),
        unitPrice(line, (cents) => money(document, cents)),
        money(document, line.amount),
      ],
      note:
        line.period.end > line.period.start
          ? `${documentDate(document, line.period.start)} to ${documentDate(document, line.period.end)}`
          : undefined,
      details: pricingDetails(line, (cents) => money(document, cents)),
    })),
    y,
  );
  // Subtotal, taxes per rate, total, paid, due.
  drawSummary(pdf, summaryRows(document), y);
}
