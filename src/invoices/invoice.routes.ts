import { z } from 'zod';
import type { AppDeps } from '../http/app-deps';
import type { Api } from '../http/api';
import { pageSchema } from '../http/pagination';
import { transactionSchema } from '../transactions';
import { payInvoice } from './invoice-payment.service';
import { refundInvoice } from './invoice-refund.service';
import {
  createInvoiceBody,
  invoiceIdParams,
  invoiceSchema,
  listInvoicesQuery,
  payInvoiceBody,
  refundInvoiceBody,
} from './invoice.schemas';
import { createInvoice, finalizeInvoice, getInvoice, onInvoiceTime, voidInvoice } from './invoice.service';
import { listInvoices } from './invoice-list.service';
import { upcomingInvoice } from '../use-cases';
import { upcomingInvoiceQuery, upcomingInvoiceSchema } from '../use-cases';
import { onCustomerTime } from '../test-clocks';
import { emailSchema } from '../emails';
import { sendInvoiceEmail } from '../use-cases';

export function registerInvoiceRoutes(api: Api, deps: AppDeps): void {
  const { prisma, temporal, gateways } = deps;
  const tag = 'Invoices';

  api.route({
    method: 'post',
    path: '/invoices',
    tag,
    summary: 'Create a draft invoice',
    description:
      'Lines are `{price, quantity?, tax?}` or `{description, amount, quantity?, tax?}` (`amount` is cents per unit). On a price ' +
      "line the price's `tax_behavior` decides whether its tax rates are included in the amount; on an amount line each rate's " +
      '`inclusive` flag does. Writes invoice.created.',
    body: createInvoiceBody,
    status: 201,
    response: invoiceSchema,
    errors: [404, 409],
    handler: ({ principal, body }) =>
      onCustomerTime(prisma, principal.accountId, body.customer, () =>
        createInvoice(prisma, principal.accountId, body),
      ),
  });

  api.route({
    method: 'get',
    path: '/invoices',
    tag,
    summary: 'List invoices, newest first',
    description:
      'Filters: status, customer, subscription, created_gt/created_gte/created_lt/created_lte (Unix seconds). ' +
      'Pages by page/take, or after/before an invoice of the list with starting_after/ending_before (404 for an unknown id).',
    query: listInvoicesQuery,
    response: pageSchema(invoiceSchema),
    errors: [404],
    handler: ({ principal, query }) => listInvoices(prisma, principal.accountId, query),
  });

  // Before /invoices/{id}, so that `upcoming` is never read as an invoice id.
  api.route({
    method: 'get',
    path: '/invoices/upcoming',
    tag,
    summary: "Preview a subscription's next invoice, prorations included (nothing is written)",
    description:
      'The invoice the subscription will be billed next, made by the billing code on its current state (proration lines ' +
      'waiting included) and not persisted: `id` and `number` are null. With a proposed change (`items`, as JSON text, with ' +
      '`proration_behavior` and `proration_date`), as if PATCH /subscriptions/{id} made it then; with `always_invoice` the ' +
      "invoice that change would charge at once. 404 for an unknown or another account's subscription; 409 `no_upcoming_invoice` " +
      'when it bills nothing more (paused, or ending first), `subscription_canceled`/`subscription_expired` once ended.',
    query: upcomingInvoiceQuery,
    response: upcomingInvoiceSchema,
    errors: [404, 409, 503],
    handler: ({ principal, query }) => upcomingInvoice({ prisma, temporal }, principal.accountId, query),
  });

  api.route({
    method: 'get',
    path: '/invoices/{id}',
    tag,
    summary: 'Retrieve an invoice with its lines and payment information',
    params: invoiceIdParams,
    response: invoiceSchema,
    errors: [404],
    handler: ({ principal, params }) => getInvoice(prisma, principal.accountId, params.id),
  });

  api.route({
    method: 'put',
    path: '/invoices/{id}',
    tag,
    summary: 'Pay an invoice',
    description:
      "Finalizes a draft, then charges `payment_method` or the customer's default. Every attempt is a transaction. Success: paid, " +
      'invoice.payment_succeeded. Decline: 200 with the invoice still open, attempt_count grown, invoice.payment_failed. ' +
      'A void or paid invoice: 409. With Idempotency-Key a repeat answers the first response and never charges again.',
    params: invoiceIdParams,
    body: payInvoiceBody,
    response: invoiceSchema,
    errors: [404, 409, 502],
    handler: ({ principal, params, body, idempotencyKey }) =>
      onInvoiceTime(prisma, principal.accountId, params.id, () =>
        payInvoice(prisma, gateways, principal.accountId, params.id, {
          paymentMethodId: body.payment_method,
          attemptKey: idempotencyKey,
          // A dashboard session's request is a person's click; a key's, the merchant's code.
          origin: { origin: principal.userId ? 'dashboard' : 'api' },
        }),
      ),
  });

  api.route({
    method: 'delete',
    path: '/invoices/{id}',
    tag,
    summary: 'Void a draft or open invoice (irreversible; invoice.deleted)',
    params: invoiceIdParams,
    response: invoiceSchema,
    errors: [404, 409],
    handler: ({ principal, params }) =>
      onInvoiceTime(prisma, principal.accountId, params.id, () => voidInvoice(prisma, principal.accountId, params.id)),
  });

  api.route({
    method: 'post',
    path: '/invoices/{id}/finalize',
    tag,
    summary: 'Finalize a draft invoice without paying it',
    description:
      'draft -> open with a number; invoice.finalized. A send_invoice invoice is then emailed to the customer with its PDF, ' +
      'and invoice.sent follows once the SMTP server accepted it (docs/api.md, "Emails"). Any other state: 409.',
    params: invoiceIdParams,
    body: z.strictObject({}).optional(),
    response: invoiceSchema,
    errors: [404, 409],
    handler: ({ principal, params }) =>
      onInvoiceTime(prisma, principal.accountId, params.id, () =>
        finalizeInvoice(prisma, principal.accountId, params.id),
      ),
  });

  api.route({
    method: 'post',
    path: '/invoices/{id}/send',
    tag,
    summary: 'Email a finalized invoice to its customer now',
    description:
      "The invoice (open or paid) goes to its customer_email, or else the customer's email, with its PDF, as a send_invoice " +
      'invoice goes at finalization; answered 202 with the email queued (GET /emails/{id} follows it to sent), and ' +
      'invoice.sent once the SMTP server accepted it. With Idempotency-Key a repeat sends nothing more. A draft: 409 ' +
      'invoice_not_finalized; a void invoice: 409 invoice_void; no email address: 409 customer_email_missing.',
    params: invoiceIdParams,
    body: z.strictObject({}).optional(),
    status: 202,
    response: emailSchema,
    errors: [404, 409],
    handler: ({ principal, params, idempotencyKey }) =>
      sendInvoiceEmail(deps, principal.accountId, params.id, idempotencyKey),
  });

  api.route({
    method: 'post',
    path: '/invoices/{id}/refund',
    tag,
    summary: 'Refund a paid invoice, fully or partly',
    description:
      'Answers the refund transaction (negative amount). More than what is left to refund: 400; an invoice that is not paid: 409.',
    params: invoiceIdParams,
    body: refundInvoiceBody,
    status: 201,
    response: transactionSchema,
    errors: [404, 409, 502],
    handler: ({ principal, params, body, idempotencyKey }) =>
      onInvoiceTime(prisma, principal.accountId, params.id, () =>
        refundInvoice(prisma, gateways, principal.accountId, params.id, {
          amount: body.amount,
          attemptKey: idempotencyKey,
        }),
      ),
  });
}
