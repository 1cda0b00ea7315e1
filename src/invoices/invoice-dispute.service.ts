import type { Db } from '../db/prisma';
import { runTransaction } from '../db/sql-transaction';
import { conflict } from '../http/errors';
import { recordEvent } from '../lib/events';
import { toUnixSeconds } from '../lib/time';
import type { ProcessorReport } from '../payments';
import { disputedPayment, recordDisputeMovement } from '../transactions';
import { updateLockedInvoice, type InvoiceWithLines } from './invoice.records';
import { lockInvoice } from './invoice-lock';
import type { InvoiceDisputeObject } from './invoice.schemas';

type ProcessorDispute = Extract<ProcessorReport, { kind: 'dispute' }>['dispute'];

/**
 * Stripe's dispute statuses by what its balance does (docs/decisions.md §44): the disputed cents leave when a dispute
 * opens and stay out while it is open, on appeal or lost; a won dispute gives them back; an inquiry (`warning_*`) or
 * a prevented dispute moves nothing. A status not listed moves nothing either.
 */
const WITHDRAWN = new Set([
  'needs_response',
  'under_review',
  'appeal_needs_response',
  'appeal_under_review',
  'lost',
  'won',
]);
const CLOSED = new Set(['won', 'lost', 'warning_closed', 'prevented']);
const APPEALS = new Set(['appeal_needs_response', 'appeal_under_review']);

/**
 * Refunds and credit notes wait for a dispute that holds the payment's money (open, on appeal or lost,
 * docs/decisions.md §44): the processor took it back already, so giving it back again would return more than
 * was collected (Stripe refuses refunds of a disputed charge; a credit to the balance would not be refused there).
 */
export function assertNoDisputeHoldsFunds(invoice: Pick<InvoiceWithLines, 'id' | 'dispute'>): void {
  const dispute = invoice.dispute as InvoiceDisputeObject | null;
  if (dispute && WITHDRAWN.has(dispute.status) && dispute.status !== 'won')
    throw conflict(
      `Invoice ${invoice.id}'s payment is disputed (${dispute.status}): the processor holds ${dispute.amount} cents of it, so nothing can be refunded or credited while it does.`,
      'invoice_disputed',
    );
}

function disputeObject(invoice: InvoiceWithLines, dispute: ProcessorDispute): InvoiceDisputeObject {
  return {
    id: dispute.id,
    object: 'dispute',
    amount: dispute.amount,
    currency: dispute.currency,
    status: dispute.status,
    closed: CLOSED.has(dispute.status),
    reason: dispute.reason,
    charge: dispute.chargeId,
    invoice: invoice.id,
    created: toUnixSeconds(dispute.created)!,
  };
}

/** Whether the invoice shows `next` already (its JSON column keeps the fields, not their order). */
function sameDispute(held: InvoiceDisputeObject | null, next: InvoiceDisputeObject): boolean {
  return held !== null && (Object.keys(next) as (keyof InvoiceDisputeObject)[]).every((key) => held[key] === next[key]);
}

/**
 * Whether an event saying `next` comes too late to change `held`: Stripe does not deliver in order, and a closed
 * dispute only opens again on appeal of its loss.
 */
function isStale(held: InvoiceDisputeObject | null, next: InvoiceDisputeObject): boolean {
  if (!held || held.id !== next.id || !held.closed || next.closed) return false;
  return !(held.status === 'lost' && APPEALS.has(next.status));
}

/**
 * A processor's report of a dispute of the charge that paid an invoice (docs/decisions.md §44): the ledger gets the
 * money it moves (`recordDisputeMovement`, once each), the invoice shows the dispute as the latest event says it,
 * and the merchant is told `charge.dispute.created` when the invoice first shows it and `charge.dispute.closed`
 * when it closes: once each, since a redelivered event changes nothing. `ignored`: no succeeded invoice payment of
 * the account is that charge (a charge the service did not make, or another account's).
 */
export async function recordInvoiceDispute(
  prisma: Db,
  accountId: string,
  dispute: ProcessorDispute,
): Promise<'recorded' | 'ignored'> {
  const payment = await disputedPayment(prisma, accountId, dispute.chargeId);
  if (!payment?.invoiceId) return 'ignored';
  const invoiceId = payment.invoiceId;
  await runTransaction(prisma, async (tx) => {
    const invoice = await lockInvoice(tx, accountId, invoiceId);
    const held = (invoice.dispute as InvoiceDisputeObject | null) ?? null;
    if (WITHDRAWN.has(dispute.status)) await recordDisputeMovement(tx, payment, dispute, 'withdrawal');
    if (dispute.status === 'won') await recordDisputeMovement(tx, payment, dispute, 'reinstatement');
    const next = disputeObject(invoice, dispute);
    if (isStale(held, next) || sameDispute(held, next)) return;
    await updateLockedInvoice(tx, invoice, { dispute: next });
    if (held?.id !== next.id) await recordEvent(tx, accountId, 'charge.dispute.created', next);
    if (next.closed && !(held?.id === next.id && held.closed))
      await recordEvent(tx, accountId, 'charge.dispute.closed', next);
  });
  return 'recorded';
}
