import PDFDocument from 'pdfkit';
import type { SummaryRow } from './invoice-document';

/**
 * The layout the service's documents share (the invoice and the credit note PDFs): an A4 page drawn
 * with pdfkit, the title and the issuer in the header, label/value facts, address blocks, a table of
 * lines and a block of amounts. The standard 14 fonts only (Helvetica): nothing to embed or download;
 * text outside Windows-1252 (Greek, CJK) is not drawn by them (docs/decisions.md §30).
 */
export const MARGIN = 50;
const INK = '#1f2933';
const MUTED = '#616e7c';
const RULE = '#cbd2d9';

/** A document drawn by `draw`, as the bytes of its PDF. */
export function renderPdf(
  info: { Title: string; Author: string; Subject: string },
  draw: (pdf: PDFKit.PDFDocument) => void,
): Promise<Buffer> {
  const pdf = new PDFDocument({ size: 'A4', margin: MARGIN, info });
  const chunks: Buffer[] = [];
  pdf.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    pdf.on('end', () => resolve(Buffer.concat(chunks)));
    pdf.on('error', reject);
  });
  draw(pdf);
  pdf.end();
  return done;
}

export const contentWidth = (pdf: PDFKit.PDFDocument) => pdf.page.width - 2 * MARGIN;

/** The title on the left, the issuer (and its email) on the right; answers where the facts start. */
export function drawHeader(
  pdf: PDFKit.PDFDocument,
  title: string,
  issuer: { name: string; email: string | null; lines: string[] },
): number {
  const width = contentWidth(pdf);
  pdf.fillColor(INK).font('Helvetica-Bold').fontSize(22).text(title, MARGIN, MARGIN);
  pdf.font('Helvetica-Bold').fontSize(12).text(issuer.name, MARGIN, MARGIN, { width, align: 'right' });
  // The seller's business details when it gave them (docs/api.md, "Business details"), else its From address.
  const lines = issuer.lines.length > 0 ? issuer.lines : issuer.email ? [issuer.email] : [];
  pdf.font('Helvetica').fontSize(9).fillColor(MUTED);
  for (const line of lines) pdf.text(line, { width, align: 'right' });
  return Math.max(MARGIN + 40, pdf.y + 12);
}

/** Label/value pairs, one a row (number, dates...); answers the y below them. */
export function drawFacts(pdf: PDFKit.PDFDocument, facts: { label: string; value: string }[], y: number): number {
  const width = contentWidth(pdf);
  pdf.fontSize(9);
  for (const fact of facts) {
    pdf.fillColor(MUTED).font('Helvetica').text(fact.label, MARGIN, y, { width: 100 });
    const top = y;
    pdf
      .fillColor(INK)
      .font('Helvetica-Bold')
      .text(fact.value, MARGIN + 100, top, { width: width / 2 });
    y = Math.max(top + 14, pdf.y + 2);
  }
  return y;
}

/** Titled blocks of lines side by side (bill to, ship to), empty ones left out; answers the y below them. */
export function drawBlocks(pdf: PDFKit.PDFDocument, blocks: [string, string[]][], y: number): number {
  const column = contentWidth(pdf) / 3;
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
  return blockBottom + 10;
}

/** One sentence in large type (what the reader looks for first: the amount due, the amount credited). */
export function drawHeadline(pdf: PDFKit.PDFDocument, text: string, y: number, note?: string): number {
  const width = contentWidth(pdf);
  pdf.fillColor(INK).font('Helvetica-Bold').fontSize(14).text(text, MARGIN, y, { width });
  if (note)
    pdf
      .fillColor(MUTED)
      .font('Helvetica')
      .fontSize(10)
      .text(note, MARGIN, pdf.y + 4, { width });
  return pdf.y + 16;
}

/** A column of the lines table: its heading, where it starts and how wide it is (shares of the width). */
export interface TableColumn {
  title: string;
  start: number;
  share: number;
  align?: 'right';
}

/**
 * A row of the table: one text per column, a muted note under the first (a line's period), and details under
 * it (a usage line's tiers), each a label under the first column and an amount under the last.
 */
export interface TableRow {
  cells: string[];
  note?: string;
  details?: { label: string; amount: string }[];
}

const DETAIL_HEIGHT = 11;

/** The lines table, its heading repeated on each new page; answers the y below its closing rule. */
export function drawTable(pdf: PDFKit.PDFDocument, columns: TableColumn[], rows: TableRow[], y: number): number {
  const width = contentWidth(pdf);
  const at = (column: TableColumn) => ({ x: MARGIN + width * column.start, width: width * column.share });
  const rule = () =>
    pdf
      .moveTo(MARGIN, y)
      .lineTo(MARGIN + width, y)
      .strokeColor(RULE)
      .lineWidth(0.5)
      .stroke();
  const header = () => {
    pdf.fillColor(MUTED).font('Helvetica').fontSize(9);
    for (const column of columns) {
      const place = at(column);
      pdf.text(column.title, place.x, y, { width: place.width, align: column.align });
    }
    y += 14;
    rule();
    y += 6;
  };
  const bottom = pdf.page.height - MARGIN - 20;
  const first = at(columns[0]!);
  header();
  for (const row of rows) {
    pdf.font('Helvetica').fontSize(10);
    const height = Math.max(pdf.heightOfString(row.cells[0] ?? '', { width: first.width }), 12) + 2;
    const details = row.details ?? [];
    const rowHeight = height + (row.note ? 12 : 0) + details.length * DETAIL_HEIGHT + 6;
    if (y + rowHeight > bottom) {
      pdf.addPage();
      y = MARGIN;
      header();
    }
    pdf.fillColor(INK).font('Helvetica').fontSize(10);
    columns.forEach((column, i) => {
      const place = at(column);
      pdf.text(row.cells[i] ?? '', place.x, y, { width: place.width, align: column.align });
    });
    if (row.note)
      pdf
        .fillColor(MUTED)
        .fontSize(8)
        .text(row.note, first.x, y + height, { width: first.width });
    const last = at(columns[columns.length - 1]!);
    details.forEach((detail, index) => {
      const detailY = y + height + (row.note ? 12 : 0) + index * DETAIL_HEIGHT;
      pdf
        .fillColor(MUTED)
        .fontSize(8)
        .text(detail.label, first.x + 8, detailY, { width: first.width - 8 });
      pdf.text(detail.amount, last.x, detailY, { width: last.width, align: 'right' });
    });
    y += rowHeight;
  }
  rule();
  return y + 8;
}

/** The amounts block (subtotal, taxes, total...), labels from the middle, amounts on the right. */
export function drawSummary(pdf: PDFKit.PDFDocument, rows: SummaryRow[], y: number): number {
  const width = contentWidth(pdf);
  const bottom = pdf.page.height - MARGIN - 20;
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
    pdf.fillColor(INK).text(row.amount, MARGIN + width * 0.82, y, { width: width * 0.18, align: 'right' });
    y += 16;
  }
  return y;
}
