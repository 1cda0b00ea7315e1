import type { Invoice } from '../api';

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
 * What the API allows in each status (docs/api.md, invoices). `refundable`: what a refund can still give
 * back once credit notes to the balance or outside are counted (docs/decisions.md §22).
 */
export function actionsFor(invoice: Invoice, refundable: number): Action[] {
  switch (invoice.status) {
    case 'draft':
      return ['finalize', 'pay', 'void'];
    case 'open':
      return ['pay', 'send', 'void'];
    case 'paid':
      return refundable > 0 ? ['send', 'refund'] : ['send'];
    case 'void':
      return [];
  }
}
