import type { Db } from '../db/prisma';
import { ApiError } from '../http/errors';
import { formatMoney } from '../lib/money';
import { getCreditNote, getCreditNoteByNumber } from '../credit-notes';
import type { CreditNoteObject } from '../credit-notes';
import { searchCustomers } from '../customers';
import { getInvoice, getInvoiceByNumber } from '../invoices';
import type { InvoiceObject } from '../invoices';
import { getPaymentPlan } from '../payment-plans';
import { getSubscription } from '../subscriptions';
import { SEARCH_CUSTOMER_HITS, type SearchHit, type SearchResult } from './search.schemas';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** INV-000012, inv-12, INV12: the numbers the invoices and credit notes carry, however a person types them. */
const NUMBER = /^(INV|CN)-?0*(\d{1,9})$/i;
/** The ids the search reads itself; a customer's id (cus_) is answered by the customers' search, as any other text. */
const KEY = /^(sub|pp|cn)_[A-Za-z0-9]+$/;

/** The object `read` finds, or null where the account has none by that id (another account's included). */
async function orNone<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

function hit(
  object: SearchHit['object'],
  id: string,
  title: string,
  detail: string | null,
  owner: { customer?: string | null; invoice?: string } = {},
): SearchHit {
  return { object, id, title, detail, customer: owner.customer ?? null, invoice: owner.invoice ?? null };
}

function customerHit(customer: { id: string; name: string; email?: string | null }): SearchHit {
  return hit('customer', customer.id, customer.name || customer.email || customer.id, customer.email ?? null);
}

function invoiceHit(invoice: InvoiceObject): SearchHit {
  const detail = [invoice.status, formatMoney(invoice.total, invoice.currency), invoice.customer_name];
  return hit(
    'invoice',
    invoice.id,
    invoice.number ? `Invoice ${invoice.number}` : 'Draft invoice',
    detail.filter(Boolean).join(' · '),
    { customer: invoice.customer },
  );
}

function creditNoteHit(note: CreditNoteObject): SearchHit {
  const detail = `${note.status} · ${formatMoney(note.amount, note.currency)}`;
  return hit('credit_note', note.id, `Credit note ${note.number}`, detail, {
    customer: note.customer,
    invoice: note.invoice,
  });
}

/** The one object an id or a number names, when the query is one. */
async function exactHit(prisma: Db, accountId: string, query: string): Promise<SearchHit | null> {
  if (UUID.test(query)) {
    const invoice = await orNone(() => getInvoice(prisma, accountId, query.toLowerCase()));
    return invoice && invoiceHit(invoice);
  }
  const number = NUMBER.exec(query);
  if (number) {
    const formatted = `${number[1]!.toUpperCase()}-${number[2]!.padStart(6, '0')}`;
    if (formatted.startsWith('INV')) {
      const invoice = await getInvoiceByNumber(prisma, accountId, formatted);
      return invoice && invoiceHit(invoice);
    }
    const note = await getCreditNoteByNumber(prisma, accountId, formatted);
    return note && creditNoteHit(note);
  }
  const [, prefix] = KEY.exec(query) ?? [];
  switch (prefix) {
    case 'sub': {
      const subscription = await orNone(() => getSubscription(prisma, accountId, query));
      return (
        subscription &&
        hit('subscription', subscription.id, `Subscription ${subscription.id}`, subscription.status, {
          customer: subscription.customer,
        })
      );
    }
    case 'pp': {
      const plan = await orNone(() => getPaymentPlan(prisma, accountId, query));
      const detail = plan && `${plan.status} · ${formatMoney(plan.total_amount, plan.currency)}`;
      return plan && hit('payment_plan', plan.id, `Payment plan ${plan.id}`, detail, { customer: plan.customer });
    }
    case 'cn': {
      const note = await orNone(() => getCreditNote(prisma, accountId, query));
      return note && creditNoteHit(note);
    }
    default:
      return null;
  }
}

/**
 * The dashboard's search box (docs/api.md "Search"): the object an id or a number names, else the
 * customers whose name or email holds the query (GET /customers/search's reading, at most
 * SEARCH_CUSTOMER_HITS). Only the account's own objects: another account's id finds nothing.
 */
export async function search(prisma: Db, accountId: string, query: string): Promise<SearchResult> {
  const exact = await exactHit(prisma, accountId, query);
  const isKey = UUID.test(query) || NUMBER.test(query) || KEY.test(query);
  const customers = isKey ? [] : await searchCustomers(prisma, accountId, query);
  const data = [...(exact ? [exact] : []), ...customers.slice(0, SEARCH_CUSTOMER_HITS).map(customerHit)];
  return { object: 'search_result', query, data };
}
