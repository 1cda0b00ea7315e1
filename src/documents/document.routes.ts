import type { AppDeps } from '../http/app-deps';
import { binaryFileSchema, FileAnswer, type Api } from '../http/api';
import { invoiceIdParams } from '../invoices';
import { invoicePdf } from './invoice-document.service';
import { creditNoteIdParams } from '../credit-notes';
import { creditNotePdf } from './credit-note-document.service';

/** Documents of resources: the invoice and credit note PDFs (docs/api.md, "Invoice PDF", "Credit notes"). */
export function registerDocumentRoutes(api: Api, { prisma }: AppDeps): void {
  api.route({
    method: 'get',
    path: '/invoices/{id}/pdf',
    tag: 'Invoices',
    summary: 'Download a finalized invoice as a PDF',
    description:
      "The invoice's number, dates, lines, taxes per rate, totals, amount paid and due, the account's and the customer's " +
      'details and shipping, as `application/pdf`. A draft (or a draft voided before it was finalized) has no document: 409 ' +
      '`invoice_not_finalized`.',
    params: invoiceIdParams,
    mediaType: 'application/pdf',
    response: binaryFileSchema,
    errors: [404, 409],
    handler: async ({ principal, params }) => {
      const { pdf, filename } = await invoicePdf(prisma, principal.accountId, params.id);
      return new FileAnswer(pdf, filename);
    },
  });

  api.route({
    method: 'get',
    path: '/credit-notes/{id}/pdf',
    tag: 'Credit notes',
    summary: 'Download a credit note as a PDF',
    description:
      'Its number and date, the invoice it credits, the customer, its lines and amounts (tax included), its reason and ' +
      "where the money went (the invoice's amount due, a card refund, the customer's balance, or outside), in the invoice " +
      "PDF's layout, as `application/pdf`. A void credit note says so. Another account's: 404.",
    params: creditNoteIdParams,
    mediaType: 'application/pdf',
    response: binaryFileSchema,
    errors: [404],
    handler: async ({ principal, params }) => {
      const { pdf, filename } = await creditNotePdf(prisma, principal.accountId, params.id);
      return new FileAnswer(pdf, filename);
    },
  });
}
