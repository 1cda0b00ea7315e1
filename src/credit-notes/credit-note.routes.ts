import type { AppDeps } from '../http/app-deps';
import type { Api } from '../http/api';
import { pageSchema } from '../http/pagination';
import { onInvoiceTime } from '../invoices';
import {
  createCreditNoteBody,
  creditNoteIdParams,
  creditNoteSchema,
  listCreditNotesQuery,
} from './credit-note.schemas';
import { createCreditNote, getCreditNote, listCreditNotes } from './credit-note.service';

export function registerCreditNoteRoutes(api: Api, { prisma, gateways }: AppDeps): void {
  const tag = 'Credit notes';

  api.route({
    method: 'post',
    path: '/credit-notes',
    tag,
    summary: 'Credit a finalized invoice, whole or in part, by line or by amount',
    description:
      "An open invoice's amount due goes down (to zero: it is paid). A paid invoice's credit goes to `refund_to`: `card` (a refund " +
      "of its payment), `customer_balance` (credit for the customer's next invoices) or `outside` (an adjustment transaction). " +
      'More than is left to credit: 400 naming the field; a draft or void invoice: 409. Writes credit_note.created ' +
      '(docs/decisions.md §22).',
    body: createCreditNoteBody,
    status: 201,
    response: creditNoteSchema,
    errors: [404, 409, 502],
    handler: async ({ principal, body, idempotencySeed }) => {
      const { note } = await onInvoiceTime(prisma, principal.accountId, body.invoice, () =>
        createCreditNote(prisma, gateways, principal.accountId, body, idempotencySeed),
      );
      return note;
    },
  });

  api.route({
    method: 'get',
    path: '/credit-notes',
    tag,
    summary: 'List credit notes, newest first',
    description:
      'Filters: invoice, customer. Pages by page/take, or after/before a credit note of the list with ' +
      'starting_after/ending_before (404 naming the parameter for an unknown id).',
    query: listCreditNotesQuery,
    response: pageSchema(creditNoteSchema),
    errors: [404],
    handler: ({ principal, query }) => listCreditNotes(prisma, principal.accountId, query),
  });

  api.route({
    method: 'get',
    path: '/credit-notes/{id}',
    tag,
    summary: 'Retrieve a credit note with its lines',
    params: creditNoteIdParams,
    response: creditNoteSchema,
    errors: [404],
    handler: ({ principal, params }) => getCreditNote(prisma, principal.accountId, params.id),
  });
}
