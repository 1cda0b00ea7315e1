import { creditDestination, creditNoteFacts, creditNoteSummary, type CreditNoteDocument } from './credit-note-document';
import { billToLines, money } from './invoice-document';
import { drawBlocks, drawFacts, drawHeader, drawHeadline, drawSummary, drawTable, renderPdf } from './pdf-layout';

/** The credit note as a PDF, in the invoice PDF's layout (src/documents/pdf-layout.ts). */
export function renderCreditNotePdf(document: CreditNoteDocument): Promise<Buffer> {
  const { note, invoice } = document;
  return renderPdf(
    {
      Title: `Credit note ${note.number}`,
      Author: document.account.name,
      Subject: `Credit note for invoice ${invoice.number ?? invoice.id}`,
    },
    (pdf) => {
      let y = drawHeader(pdf, note.status === 'void' ? 'Credit note (void)' : 'Credit note', document.account);
      y = drawFacts(pdf, creditNoteFacts(document), y);
      y = drawBlocks(pdf, [['Customer', billToLines(document)]], y + 16);
      y = drawHeadline(pdf, `${money(document, note.amount)} credited`, y + 6, `${creditDestination(note)}.`);
      y = drawTable(
        pdf,
        [
          { title: 'Description', start: 0, share: 0.64 },
          { title: 'Qty', start: 0.65, share: 0.12, align: 'right' },
          { title: 'Amount', start: 0.82, share: 0.18, align: 'right' },
        ],
        note.lines.map((line) => ({
          cells: [
            line.description ?? `Credit on invoice ${invoice.number ?? invoice.id}`,
            line.quantity === null ? '' : String(line.quantity),
            money(document, line.amount),
          ],
        })),
        y,
      );
      drawSummary(pdf, creditNoteSummary(document), y);
    },
  );
}
