import { api } from '../api/client';
import type { Invoice } from '../api/types';
import type { Outcome } from '../components/feedback';
import { centsFromText } from '../components/format';
import { afterSubscriptionPayment, emailOutcome, paymentOutcome, refundOutcome } from './outcomes';

/** What can be done to an invoice from its page, with the question asked before and the notice after. */
export type Action = 'finalize' | 'pay' | 'void' | 'refund' | 'send';

export const ACTIONS: Record<Action, { label: string; question: string; done: string; danger: boolean }> = {
  finalize: {
    label: 'Finalize',
    question: 'It gets its number and can no longer be edited. Nothing is charged.',
    done: 'Finalized.',
    danger: false,
  },
  pay: {
    label: 'Charge now',
    question: "The customer's default payment method is charged the amount due.",
    done: 'Charged.',
    danger: false,
  },
  void: {
    label: 'Void invoice',
    question: 'Nothing more is owed on it and it cannot be paid. This cannot be undone.',
    done: 'Voided.',
    danger: true,
  },
  refund: {
    label: 'Refund',
    question: 'The amount goes back to the payment method that paid. This cannot be undone.',
    done: 'Refunded.',
    danger: true,
  },
  send: {
    label: 'Send invoice',
    question: 'The invoice and its PDF are emailed to the customer now, with the link to pay it online.',
    done: 'Sent.',
    danger: false,
  },
};

/**
 * Whether a dispute holds the payment's money (open, on appeal or lost: docs/decisions.md §44), so that the API
 * refuses refunds and credit notes with 409 `invoice_disputed`: the page does not offer them then.
 */
export function disputeHoldsFunds(invoice: Invoice): boolean {
  const status = invoice.dispute?.status;
  return status !== undefined && status !== 'won' && !status.startsWith('warning_') && status !== 'prevented';
}

/** A credit note from the page: on an open invoice, or a paid one once its credit notes are read; not while a dispute holds the money. */
export function canIssueCreditNote(invoice: Invoice, creditNotesRead: boolean): boolean {
  return !disputeHoldsFunds(invoice) && (invoice.status === 'open' || (invoice.status === 'paid' && creditNotesRead));
}

/**
 * What the API allows in each status (docs/api.md, invoices). `refundable`: what a refund can still give
 * back once credit notes to the balance or outside are counted (docs/decisions.md §22). `held`: a payment of the
 * invoice its processor holds (docs/decisions.md §40).
 */
export function actionsFor(invoice: Invoice, refundable: number, held = false): Action[] {
  switch (invoice.status) {
    case 'draft':
      return ['finalize', 'pay', 'void'];
    case 'open':
      // A payment its processor holds (a bank debit processing) is neither charged again nor voided under.
      return held ? ['send'] : ['pay', 'send', 'void'];
    case 'paid':
      return refundable > 0 && !disputeHoldsFunds(invoice) ? ['send', 'refund'] : ['send'];
    case 'void':
      return [];
  }
}

/**
 * Does `action` to the invoice and reads what it came to. Pay, refund and send are keyed by `keyFor` (a double
 * click, a retry after a lost answer: one charge, refund or email); finalize and void are refused by the
 * invoice's state when repeated. `refundText` is the amount typed for a refund (empty: all that is left).
 */
export async function runInvoiceAction(
  action: Action,
  id: string,
  keyFor: (body: unknown) => string,
  refundText: string,
): Promise<{ invoice: Invoice; outcome?: Outcome }> {
  const path = { params: { path: { id } } };
  switch (action) {
    case 'finalize':
      return { invoice: await api.POST('/invoices/{id}/finalize', path) };
    case 'pay': {
      // A decline answers 200 with the invoice still open: its outcome is read from its transaction.
      const invoice = await api.PUT('/invoices/{id}', {
        params: { path: { id }, header: { 'Idempotency-Key': keyFor('pay') } },
        body: {},
      });
      return { invoice, outcome: await afterSubscriptionPayment(invoice, await paymentOutcome(invoice)) };
    }
    case 'void':
      return { invoice: await api.DELETE('/invoices/{id}', path) };
    case 'refund': {
      // The answer is the refund's transaction; the invoice is read again after it.
      const amount = refundText.trim() === '' ? undefined : centsFromText(refundText);
      const body = amount === undefined ? {} : { amount };
      const refund = await api.POST('/invoices/{id}/refund', {
        params: { path: { id }, header: { 'Idempotency-Key': keyFor(body) } },
        body,
      });
      return { invoice: await api.GET('/invoices/{id}', path), outcome: refundOutcome(refund) };
    }
    case 'send': {
      const email = await api.POST('/invoices/{id}/send', {
        params: { path: { id }, header: { 'Idempotency-Key': keyFor('send') } },
      });
      return { invoice: await api.GET('/invoices/{id}', path), outcome: await emailOutcome(email) };
    }
  }
}
