import type { Customer, Invoice, PaymentMethod, Transaction } from '../generated/prisma/client';
import type { Db } from '../db/prisma';
import { PLAN_INCLUDE, type PlanWithDetails } from '../payment-plans';
import type { SubscriptionWithItems } from '../subscriptions';
import { getDunningSettings } from '../subscriptions';
import type { DunningSettingsObject } from '../subscriptions';

/**
 * The reads behind `npm run support -- customer` (docs/operations.md, "Why was this customer charged"):
 * the database is the source of truth, whatever the workflows' search attributes say.
 */

/** How many of the newest invoices and charges a lookup shows. */
export const LOOKUP_LIMITS = { invoices: 10, charges: 20 } as const;

/** At most this many customers are shown for one email (across accounts). */
export const MAX_CUSTOMERS_PER_EMAIL = 20;

/**
 * Customers whose email is `email` compared case-insensitively (the address as stored today: a later
 * change is followed), oldest first, deleted ones included (their history stays). Across accounts
 * unless `accountId` is given. `lower(email) = lower($1)`, not ILIKE, whose `_` and `%` are wildcards.
 */
export async function findCustomersByEmail(prisma: Db, email: string, accountId?: string): Promise<Customer[]> {
  const rows = await prisma.$queryRaw<{ id: string }[]>`
    SELECT id FROM customers
    WHERE lower(email) = lower(${email.trim()}) AND (${accountId ?? null}::text IS NULL OR account_id = ${accountId ?? null})
    ORDER BY created_at, id
    LIMIT ${MAX_CUSTOMERS_PER_EMAIL}`;
  if (rows.length === 0) return [];
  const customers = await prisma.customer.findMany({ where: { id: { in: rows.map((row) => row.id) } } });
  const order = new Map(rows.map((row, index) => [row.id, index]));
  return customers.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
}

/** The customer with this id (deleted or not), in any account unless `accountId` is given. */
export function findCustomerById(prisma: Db, id: string, accountId?: string): Promise<Customer[]> {
  return prisma.customer.findMany({ where: { id, ...(accountId ? { accountId } : {}) } });
}

export interface CustomerActivity {
  subscriptions: SubscriptionWithItems[];
  plans: PlanWithDetails[];
  /** Newest first, at most LOOKUP_LIMITS.invoices, and every invoice a shown charge or open dunning names. */
  invoices: Invoice[];
  /** Newest first, at most LOOKUP_LIMITS.charges. */
  charges: Transaction[];
  /** The payment methods the charges used, and the default one. */
  paymentMethods: Map<string, Pick<PaymentMethod, 'id' | 'type' | 'cardBrand' | 'bankName' | 'last4'>>;
  defaultPaymentMethodId: string | null;
  /** Payment-plan payments of the shown charges, by transaction id. */
  planPayments: Map<
    string,
    { id: string; planId: string; installmentNumbers: number[]; method: string; deposit: boolean }
  >;
  dunning: DunningSettingsObject;
  /** Per invoice: its payment attempts (charges) in the ledger, and when the first one failed. */
  invoiceAttempts: Map<string, { attempts: number; firstFailedAt: Date | null }>;
}

/** Everything a support agent needs about one customer, from its account's tables. */
export async function customerActivity(
  prisma: Db,
  customer: Pick<Customer, 'id' | 'accountId'>,
): Promise<CustomerActivity> {
  const where = { accountId: customer.accountId, customerId: customer.id };
  const [subscriptions, plans, latestInvoices, charges, defaultMethod, dunning] = await Promise.all([
    prisma.subscription.findMany({ where, include: { items: true }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] }),
    prisma.paymentPlan.findMany({ where, include: PLAN_INCLUDE, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] }),
    prisma.invoice.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: LOOKUP_LIMITS.invoices }),
    prisma.transaction.findMany({
      where,
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: LOOKUP_LIMITS.charges,
    }),
    prisma.customerDefaultPaymentMethod.findUnique({
      where: { accountId_customerId: { accountId: customer.accountId, customerId: customer.id } },
    }),
    getDunningSettings(prisma, customer.accountId),
  ]);
  // Invoices named by a charge or still open on a subscription, beyond the newest ones.
  const shown = new Set(latestInvoices.map((invoice) => invoice.id));
  const named = [
    ...new Set(charges.map((charge) => charge.invoiceId).filter((id): id is string => id !== null && !shown.has(id))),
  ];
  const openOnSubscriptions = await prisma.invoice.findMany({
    where: { ...where, status: 'open', subscriptionId: { not: null }, id: { notIn: [...shown] } },
  });
  const more = named.length
    ? await prisma.invoice.findMany({ where: { accountId: customer.accountId, id: { in: named } } })
    : [];
  const invoices = [
    ...latestInvoices,
    ...[...openOnSubscriptions, ...more].filter(
      (invoice, index, all) => all.findIndex((other) => other.id === invoice.id) === index,
    ),
  ];

  const methodIds = [
    ...new Set(
      [...charges.map((charge) => charge.paymentMethodId), defaultMethod?.paymentMethodId ?? null].filter(
        (id): id is string => id !== null,
      ),
    ),
  ];
  const openInvoiceIds = invoices.filter((invoice) => invoice.status === 'open').map((invoice) => invoice.id);
  const [methods, planPayments, attempts] = await Promise.all([
    methodIds.length
      ? prisma.paymentMethod.findMany({
          where: { accountId: customer.accountId, id: { in: methodIds } },
          select: { id: true, type: true, cardBrand: true, bankName: true, last4: true },
        })
      : [],
    charges.length
      ? prisma.paymentPlanPayment.findMany({
          where: { accountId: customer.accountId, transactionId: { in: charges.map((charge) => charge.id) } },
          select: {
            id: true,
            planId: true,
            installmentNumbers: true,
            method: true,
            deposit: true,
            transactionId: true,
          },
        })
      : [],
    openInvoiceIds.length
      ? prisma.transaction.groupBy({
          by: ['invoiceId'],
          where: {
            accountId: customer.accountId,
            invoiceId: { in: openInvoiceIds },
            type: 'payment',
            status: { not: 'pending' },
          },
          _count: { _all: true },
          _min: { createdAt: true },
        })
      : [],
  ]);
  return {
    subscriptions,
    plans,
    invoices,
    charges,
    paymentMethods: new Map(methods.map((method) => [method.id, method])),
    defaultPaymentMethodId: defaultMethod?.paymentMethodId ?? null,
    planPayments: new Map(
      planPayments.filter((payment) => payment.transactionId).map((payment) => [payment.transactionId!, payment]),
    ),
    dunning,
    invoiceAttempts: new Map(
      attempts.map((row) => [row.invoiceId!, { attempts: row._count._all, firstFailedAt: row._min.createdAt }]),
    ),
  };
}
