import type { AppDeps } from '../http/app-deps';
import { binaryFileSchema, FileAnswer, type Api } from '../http/api';
import { invoiceIdParams } from '../invoices/invoice.schemas';
import { invoicePdf } from './invoice-document.service';

/** Documents of resources: the invoice PDF (docs/api.md, "Invoice PDF"). */
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
}
