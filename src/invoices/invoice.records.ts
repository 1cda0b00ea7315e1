import { COLLECTION_METHODS, INVOICE_STATUSES } from './invoice.schemas';
import { columnValue } from '../lib/columns';
import type { Invoice, InvoiceLine } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';
import { notFound } from '../http/errors';
import { toUnixSeconds } from '../lib/time';
import type { InvoiceLineObject, InvoiceObject, TaxAmountObject } from './invoice.schemas';
import { updatedMsOf } from '../lib/object-version';

export type InvoiceWithLines = Invoice & { lines: InvoiceLine[] };

type Address = NonNullable<InvoiceObject['customer_address']>;

function toLineObject(line: InvoiceLine, currency: string): InvoiceLineObject {
  return {
    id: line.id,
    object: 'line_item',
    description: line.description,
    amount: Number(line.amount),
    amount_excluding_tax: Number(line.amountExcludingTax),
    currency,
    quantity: line.quantity,
    unit_amount: Number(line.unitAmount),
    price: line.priceId,
    tax_rates: line.taxRateIds,
    tax_amounts: line.taxAmounts as TaxAmountObject[],
    period: { start: toUnixSeconds(line.periodStart), end: toUnixSeconds(line.periodEnd) },
  };
}

export function toInvoiceObject(invoice: InvoiceWithLines): InvoiceObject {
  const amountDue = Number(invoice.amountDue);
  const amountPaid = Number(invoice.amountPaid);
  return {
    id: invoice.id,
    object: 'invoice',
    account_country: invoice.accountCountry,
    account_name: invoice.accountName,
    amount_due: amountDue,
    amount_paid: amountPaid,
    amount_remaining: amountDue - amountPaid,
    amount_refunded: Number(invoice.amountRefunded),
    attempt_count: invoice.attemptCount,
    attempted: invoice.attemptCount > 0,
    billing_reason: invoice.billingReason,
    collection_method: columnValue(COLLECTION_METHODS, invoice.collectionMethod, 'invoices.collection_method'),
    created: toUnixSeconds(invoice.createdAt),
    updated_ms: updatedMsOf(invoice),
    currency: invoice.currency,
    customer: invoice.customerId,
    customer_address: (invoice.customerAddress as Address | null) ?? null,
    customer_email: invoice.customerEmail,
    customer_name: invoice.customerName,
    customer_phone: invoice.customerPhone,
    due_date: toUnixSeconds(invoice.dueDate),
    lines: [...invoice.lines].sort((a, b) => a.position - b.position).map((line) => toLineObject(line, invoice.currency)),
    number: invoice.number,
    paid: invoice.status === 'paid',
    payment_method: invoice.paymentMethodId,
    period_start: toUnixSeconds(invoice.periodStart),
    period_end: toUnixSeconds(invoice.periodEnd),
    status: columnValue(INVOICE_STATUSES, invoice.status, 'invoices.status'),
    status_transitions: {
      finalized_at: toUnixSeconds(invoice.finalizedAt),
      paid_at: toUnixSeconds(invoice.paidAt),
      voided_at: toUnixSeconds(invoice.voidedAt),
    },
    subscription: invoice.subscriptionId,
    subtotal: Number(invoice.subtotal),
    subtotal_excluding_tax: Number(invoice.subtotalExcludingTax),
    tax: Number(invoice.tax),
    total: Number(invoice.total),
    total_excluding_tax: Number(invoice.totalExcludingTax),
    total_taxes: invoice.totalTaxes as TaxAmountObject[],
  };
}

/** An invoice of the account with its lines, or 404 (also for another account's invoice). */
export async function findInvoice(db: Db | Tx, accountId: string, id: string): Promise<InvoiceWithLines> {
  const invoice = await db.invoice.findFirst({ where: { id, accountId }, include: { lines: true } });
  if (!invoice) throw notFound('invoice', id);
  return invoice;
}

/** The invoice, locked FOR UPDATE until the caller's transaction ends: every state change goes through here. */
export async function lockInvoice(tx: Tx, accountId: string, id: string): Promise<InvoiceWithLines> {
  const rows = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM invoices WHERE id = ${id} AND account_id = ${accountId} FOR UPDATE`;
  if (rows.length === 0) throw notFound('invoice', id);
  return findInvoice(tx, accountId, id);
}
