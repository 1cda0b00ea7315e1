import type { Queryable } from '../db/sql';
import {
  paidInvoiceCreditable,
  paidInvoiceGivenBack,
  readPeriodInvoicesAt,
  readSubscriptionInvoicesMade,
  type InvoiceWithLines,
} from './invoice.records';
import { discountedLineShares } from './line-shares';
import type { Db, Tx } from '../db/prisma';

/**
 * What a subscription's billed period still holds (docs/decisions.md §25, "What unused time gives back"),
 * in cents with tax, from its invoices: what unused time may credit, and what credit notes and refunds of
 * the period's invoices may still give back, so neither gives back what the other already did.
 *
 * - The period's invoice: what its item lines were billed (after the discount, §22), less pre-payment
 *   credit notes; paid, less what credit notes and card refunds gave back (the invoice's lines of an
 *   earlier period aside: those are that period's); open, collected only as far as the customer's balance
 *   paid it, the rest owed.
 * - The invoices changes made inside the period at once (their proration lines): what they collected
 *   less what they gave back, below zero where they credited the period.
 * - The next period's invoice, for the period's proration lines it billed (waiting `create_prorations`
 *   lines): below zero where they credited the period.
 */
export interface PeriodHeld {
  /** Collected and not given back. */
  collected: number;
  /** Owed still (an invoice not paid). */
  owed: number;
}

type Line = InvoiceWithLines['lines'][number];

const billedOf = (invoice: InvoiceWithLines, lines: (line: Line) => boolean) => {
  const shares = discountedLineShares(invoice);
  return invoice.lines.filter(lines).reduce((sum, line) => sum + shares.get(line.id)!, 0n);
};

const atMost = (a: bigint, b: bigint) => (a < b ? a : b);
const positive = (cents: bigint) => (cents > 0n ? cents : 0n);

/** The period's own invoice: its item lines. */
async function heldByPeriodInvoice(db: Queryable, invoice: InvoiceWithLines) {
  if (invoice.status !== 'paid' && invoice.status !== 'open') return { collected: 0n, owed: 0n };
  const left =
    billedOf(invoice, (line) => line.priceId !== null && !line.proration) - invoice.prePaymentCreditNotesAmount;
  if (invoice.status === 'paid') return { collected: left - (await paidInvoiceGivenBack(db, invoice)), owed: 0n };
  const collected = atMost(positive(invoice.appliedBalance), positive(left));
  return { collected, owed: positive(left) - collected };
}

/** A change's invoice: all it billed, as money (an invoice below zero the balance could not take gave nothing yet). */
async function heldByChangeInvoice(db: Queryable, invoice: InvoiceWithLines) {
  if (invoice.status === 'paid') {
    const collected = invoice.amountPaid + invoice.appliedBalance;
    return { collected: collected - (await paidInvoiceGivenBack(db, invoice)), owed: 0n };
  }
  if (invoice.status !== 'open') return { collected: 0n, owed: 0n };
  const collected = positive(invoice.appliedBalance);
  return { collected, owed: positive(invoice.amountDue - invoice.amountPaid) };
}

/** The next period's invoice: the lines of this period it billed (a credit there was given, a charge owed until paid). */
function heldByNextInvoice(invoice: InvoiceWithLines, from: Date, to: Date) {
  if (invoice.status !== 'paid' && invoice.status !== 'open') return { collected: 0n, owed: 0n };
  const billed = billedOf(
    invoice,
    (line) => line.priceId !== null && line.proration && line.periodStart >= from && line.periodStart < to,
  );
  if (invoice.status === 'paid' || billed < 0n) return { collected: billed, owed: 0n };
  return { collected: 0n, owed: billed };
}

/** What the subscription's period in force at `at` still holds (see PeriodHeld). */
export async function subscriptionPeriodHeld(
  db: Queryable,
  accountId: string,
  subscriptionId: string,
  at: Date,
): Promise<PeriodHeld> {
  const { current, next } = await readPeriodInvoicesAt(db, accountId, subscriptionId, at);
  const from = current?.periodStart ?? at;
  const to = next?.periodStart ?? null;
  const changes = await readSubscriptionInvoicesMade(db, accountId, subscriptionId, 'subscription_update', {
    from,
    to,
  });
  const held = [
    ...(current ? [await heldByPeriodInvoice(db, current)] : []),
    ...(await Promise.all(changes.map((invoice) => heldByChangeInvoice(db, invoice)))),
    ...(next ? [heldByNextInvoice(next, from, next.periodStart)] : []),
  ];
  return {
    collected: Number(held.reduce((sum, each) => sum + each.collected, 0n)),
    owed: Number(held.reduce((sum, each) => sum + each.owed, 0n)),
  };
}

/**
 * What a paid invoice can still give back (credit notes, refunds: docs/decisions.md §22), and for a
 * subscription's invoice no more than its period still holds: unused time it credited already (a change,
 * an ending, a downgrade billed on the next invoice) is not given back twice.
 */
export async function invoiceCreditable(tx: Db | Tx, invoice: InvoiceWithLines): Promise<bigint> {
  const own = await paidInvoiceCreditable(tx, invoice);
  if (invoice.subscriptionId === null) return own;
  const periodical = invoice.billingReason === 'subscription_create' || invoice.billingReason === 'subscription_cycle';
  const at = periodical ? invoice.periodStart : invoice.createdAt;
  const held = await subscriptionPeriodHeld(tx, invoice.accountId, invoice.subscriptionId, at);
  return atMost(own, positive(BigInt(held.collected)));
}
