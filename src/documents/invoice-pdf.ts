import PDFDocument from 'pdfkit';
import {
  billToLines,
  documentDate,
  headlineFacts,
  money,
  shipToLines,
  summaryRows,
  type InvoiceDocument,
} from './invoice-document';

const MARGIN = 50;
const INK = '#1f2933';
const MUTED = '#616e7c';
const RULE = '#cbd2d9';

/**
 * The invoice as a PDF (A4), drawn with pdfkit: no browser in production (docs/decisions.md §30 and
 * docs/performance.md, "Invoice PDF"). The standard 14 fonts only (Helvetica): nothing to embed or
 * download; text outside Windows-1252 (Greek, CJK) is not drawn by them.
 */
export function renderInvoicePdf(document: InvoiceDocument, kind: 'invoice' | 'receipt' = 'invoice'): Promise<Buffer> {
  const { invoice } = document;
  const pdf = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    info: {
      Title: `${kind === 'receipt' ? 'Receipt for invoice' : 'Invoice'} ${invoice.number ?? invoice.id}`,
      Author: document.account.name,
      Subject: `Invoice for ${invoice.customer_name ?? invoice.customer}`,
    },
  });
  const chunks: Buffer[] = [];
  pdf.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    pdf.on('end', () => resolve(Buffer.concat(chunks)));
    pdf.on('error', reject);
  });
  draw(pdf, document, kind);
  pdf.end();
  return done;
}

/** The receipt is the paid invoice's document under its own title: the same facts, lines and amounts. */
function draw(pdf: PDFKit.PDFDocument, document: InvoiceDocument, kind: 'invoice' | 'receipt'): void {
  const { invoice } = document;
  const width = pdf.page.width - 2 * MARGIN;
  const right = MARGIN + width;

  // Header: the title on the left, the issuer on the right.
  pdf
    .fillColor(INK)
    .font('Helvetica-Bold')
    .fontSize(22)
    .text(kind === 'receipt' ? 'Receipt' : invoice.status === 'void' ? 'Invoice (void)' : 'Invoice', MARGIN, MARGIN);
  pdf.font('Helvetica-Bold').fontSize(12).text(document.account.name, MARGIN, MARGIN, { width, align: 'right' });
  if (document.account.email)
    pdf.font('Helvetica').fontSize(9).fillColor(MUTED).text(document.account.email, { width, align: 'right' });

  // Number and dates.
  let y = MARGIN + 40;
  pdf.fontSize(9);
  for (const fact of headlineFacts(document)) {
    pdf.fillColor(MUTED).font('Helvetica').text(fact.label, MARGIN, y, { width: 100 });
    pdf
      .fillColor(INK)
      .font('Helvetica-Bold')
      .text(fact.value, MARGIN + 100, y, { width: width / 2 });
    y += 14;
  }

  // Bill to / ship to.
  y += 16;
  const column = width / 3;
  const blocks: [string, string[]][] = [
    ['Bill to', billToLines(document)],
    ['Ship to', shipToLines(document)],
  ];
  let blockBottom = y;
  blocks.forEach(([title, lines], i) => {
    if (lines.length === 0) return;
    const x = MARGIN + i * column;
    pdf
      .fillColor(MUTED)
      .font('Helvetica')
      .fontSize(9)
      .text(title, x, y, { width: column - 10 });
    pdf.fillColor(INK).font('Helvetica').fontSize(10);
    for (const line of lines) pdf.text(line, { width: column - 10 });
    blockBottom = Math.max(blockBottom, pdf.y);
  });
  y = blockBottom + 10;

  // The amount due, large, as the reader looks for it first.
  pdf
    .fillColor(INK)
    .font('Helvetica-Bold')
    .fontSize(14)
    .text(
      invoice.status === 'paid'
        ? `${money(document, invoice.amount_paid)} paid${invoice.status_transitions.paid_at ? ` on ${documentDate(document, invoice.status_transitions.paid_at)}` : ''}`
        : `${money(document, invoice.amount_remaining)} due${invoice.due_date ? ` by ${documentDate(document, invoice.due_date)}` : ''}`,
      MARGIN,
      y + 6,
      { width },
    );
  y = pdf.y + 16;

  // Lines.
  const columns = {
    description: MARGIN,
    quantity: MARGIN + width * 0.55,
    unit: MARGIN + width * 0.65,
    amount: MARGIN + width * 0.82,
  };
  const header = () => {
    pdf.fillColor(MUTED).font('Helvetica').fontSize(9);
    pdf.text('Description', columns.description, y, { width: width * 0.54 });
    pdf.text('Qty', columns.quantity, y, { width: width * 0.09, align: 'right' });
    pdf.text('Unit price', columns.unit, y, { width: width * 0.16, align: 'right' });
    pdf.text('Amount', columns.amount, y, { width: width * 0.18, align: 'right' });
    y += 14;
    pdf.moveTo(MARGIN, y).lineTo(right, y).strokeColor(RULE).lineWidth(0.5).stroke();
    y += 6;
  };
  const bottom = pdf.page.height - MARGIN - 20;
  header();
  for (const line of invoice.lines) {
    const description = line.description ?? '';
    pdf.font('Helvetica').fontSize(10);
    const height = Math.max(pdf.heightOfString(description, { width: width * 0.54 }), 12) + 2;
    const period =
      line.period.end > line.period.start
        ? `${documentDate(document, line.period.start)} to ${documentDate(document, line.period.end)}`
        : '';
    const rowHeight = height + (period ? 12 : 0) + 6;
    if (y + rowHeight > bottom) {
      pdf.addPage();
      y = MARGIN;
      header();
    }
    pdf.fillColor(INK).font('Helvetica').fontSize(10);
    pdf.text(description, columns.description, y, { width: width * 0.54 });
    pdf.text(String(line.quantity), columns.quantity, y, { width: width * 0.09, align: 'right' });
    pdf.text(money(document, line.unit_amount), columns.unit, y, { width: width * 0.16, align: 'right' });
    pdf.text(money(document, line.amount), columns.amount, y, { width: width * 0.18, align: 'right' });
    if (period)
      pdf
        .fillColor(MUTED)
        .fontSize(8)
        .text(period, columns.description, y + height, { width: width * 0.54 });
    y += rowHeight;
  }
  pdf.moveTo(MARGIN, y).lineTo(right, y).strokeColor(RULE).lineWidth(0.5).stroke();
  y += 8;

  // Subtotal, taxes per rate, total, paid, due.
  const rows = summaryRows(document);
  if (y + rows.length * 16 > bottom) {
    pdf.addPage();
    y = MARGIN;
  }
  for (const row of rows) {
    pdf
      .fillColor(row.strong ? INK : MUTED)
      .font(row.strong ? 'Helvetica-Bold' : 'Helvetica')
      .fontSize(10);
    pdf.text(row.label, MARGIN + width * 0.45, y, { width: width * 0.35 });
    pdf.fillColor(INK).text(row.amount, columns.amount, y, { width: width * 0.18, align: 'right' });
    y += 16;
  }
}
