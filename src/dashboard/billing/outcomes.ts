import { api } from '../api/client';
import type { Email, Invoice, Subscription, Transaction } from '../api/types';
import { formatDate, formatMoney, statusLabel } from '../components/format';
import type { Outcome } from '../components/common';

/**
 * What an action that moves money came to, read from the API once it is known (docs/api.md: a declined
 * charge answers 200 with the invoice still open, and the decline is on its transaction; a subscription's
 * first decline is recorded by its workflow just after the answer). The screens show it in words, with the
 * decline's reason, instead of a bare "Done".
 */

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long a screen waits for an outcome its workflow records after the answer, before saying it will follow. */
const SETTLE_MS = 15_000;
const POLL_MS = 500;

/** Reads `read` again until `settled` holds or SETTLE_MS has passed; the last answer either way. */
async function readUntil<T>(first: T, read: () => Promise<T>, settled: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + SETTLE_MS;
  let value = first;
  while (!settled(value) && Date.now() < deadline) {
    await pause(POLL_MS);
    value = await read();
  }
  return value;
}

const invoiceName = (invoice: Invoice) => invoice.number ?? 'The draft invoice';

/** The invoice's latest payment attempt: its transactions' payment with the highest attempt number. */
async function latestPayment(invoiceId: string): Promise<Transaction | undefined> {
  const page = await api.GET('/invoices/{id}/transactions', {
    params: { path: { id: invoiceId }, query: { take: 100 } },
  });
  return page.data
    .filter((entry) => entry.type === 'payment')
    .sort((a, b) => (b.attempt ?? 0) - (a.attempt ?? 0) || b.created - a.created)[0];
}

/** A declined attempt's reason as the processor gave it: `Your card was declined. (card_declined)`. */
export function declineReason(entry: Pick<Transaction, 'failure_code' | 'failure_message'> | undefined): string {
  if (!entry?.failure_message) return entry?.failure_code ?? 'the payment was declined';
  return `${entry.failure_message}${entry.failure_code ? ` (${entry.failure_code})` : ''}`;
}

/** An invoice after a charge of it (PUT /invoices/{id}, a subscription's first charge): paid, declined, or still waiting. */
export async function paymentOutcome(invoice: Invoice): Promise<Outcome> {
  const money = (cents: number) => formatMoney(cents, invoice.currency);
  if (invoice.status === 'paid')
    return { tone: 'success', text: `Charged. ${invoiceName(invoice)} is paid: ${money(invoice.amount_paid)}.` };
  if (invoice.status === 'void')
    return { tone: 'failure', text: `${invoiceName(invoice)} is void: nothing was charged.` };
  const payment = await latestPayment(invoice.id);
  if (payment?.status === 'failed')
    return {
      tone: 'failure',
      text: `Declined: ${declineReason(payment)}. ${invoiceName(invoice)} is still open, ${money(invoice.amount_remaining)} due; nothing was charged.`,
    };
  // A bank debit its bank settles days later (docs/decisions.md §40): neither an unanswered charge nor a decline.
  if (payment?.status === 'pending' && payment.gateway_reference !== null && !payment.failure_code)
    return {
      tone: 'pending',
      text: `The bank debit of ${money(payment.amount)} is processing: banks settle it within a few days. Nothing more is charged meanwhile.`,
    };
  if (payment?.status === 'pending')
    return {
      tone: 'pending',
      text: `The charge of ${money(payment.amount)} was sent; the card processor has not answered yet. Paying again completes it without a second charge.`,
    };
  return { tone: 'pending', text: `${invoiceName(invoice)} is open: no charge was made yet.` };
}

/**
 * A subscription's invoice paid (from its page): the subscription's workflow ends its dunning a moment after,
 * and the subscription leaves past_due. Read again until it has, so the words say where it stands.
 */
export async function afterSubscriptionPayment(invoice: Invoice, outcome: Outcome): Promise<Outcome> {
  if (outcome.tone !== 'success' || !invoice.subscription) return outcome;
  const path = { params: { path: { id: invoice.subscription } } };
  const first = await api.GET('/subscriptions/{id}', path);
  const subscription = await readUntil(
    first,
    () => api.GET('/subscriptions/{id}', path),
    (read) => read.status !== 'past_due',
  );
  const where =
    subscription.status === 'past_due'
      ? 'Its subscription is still past due until its workflow has recorded the payment.'
      : `Its subscription is ${statusLabel(subscription.status)}.`;
  return { ...outcome, text: `${outcome.text} ${where}` };
}

/** A refund's transaction (POST /invoices/{id}/refund answers it) in words. */
export function refundOutcome(refund: Transaction): Outcome {
  const money = formatMoney(-refund.amount, refund.currency);
  if (refund.status === 'succeeded') return { tone: 'success', text: `Refunded. ${money} goes back to the card.` };
  if (refund.status === 'failed')
    return { tone: 'failure', text: `The refund of ${money} was refused: ${declineReason(refund)}.` };
  return { tone: 'pending', text: `The refund of ${money} was sent; the card processor has not answered yet.` };
}

/**
 * A subscription just created, once what its creation set off is known: its first charge's outcome (the
 * answer may come while the charge still runs, 202), and after a decline the status its workflow records
 * (past_due) a moment after the answer: the subscription is read again until its version moves on from
 * the creation's. Answers the subscription, its first invoice and the words to show.
 */
export async function settleNewSubscription(
  created: Subscription,
): Promise<{ subscription: Subscription; invoice?: Invoice; outcome: Outcome }> {
  const path = { params: { path: { id: created.id } } };
  if (created.status === 'trialing')
    return {
      subscription: created,
      outcome: {
        tone: 'success',
        text: `Subscription created: on trial until ${formatDate(created.trial_end)}; nothing is charged before.`,
      },
    };
  if (created.status === 'scheduled')
    return {
      subscription: created,
      outcome: { tone: 'success', text: `Subscription created: it starts on ${formatDate(created.start_date)}.` },
    };
  if (!created.latest_invoice)
    return {
      subscription: created,
      outcome: { tone: 'success', text: 'Subscription created: nothing is billed yet.' },
    };
  const invoicePath = { params: { path: { id: created.latest_invoice } } };
  let invoice = await api.GET('/invoices/{id}', invoicePath);
  if (created.collection_method === 'send_invoice')
    return {
      subscription: created,
      invoice,
      outcome: {
        tone: 'success',
        text: `Subscription created. First invoice ${invoice.number} is sent to the customer, due ${formatDate(invoice.due_date)}.`,
      },
    };
  // Answered while the first charge still runs (202): its outcome is the invoice's.
  invoice = await readUntil(
    invoice,
    () => api.GET('/invoices/{id}', invoicePath),
    (read) => read.status !== 'open' || read.attempt_count > 0,
  );
  // A declined first charge is recorded by the subscription's workflow (past_due) after the answer.
  const subscription =
    invoice.status === 'open' && invoice.attempt_count > 0
      ? await readUntil(
          created,
          () => api.GET('/subscriptions/{id}', path),
          (read) => read.updated_ms !== created.updated_ms || read.status !== 'active',
        )
      : created;
  const charge = await paymentOutcome(invoice);
  if (charge.tone === 'success')
    return { subscription, invoice, outcome: { tone: 'success', text: `Subscription created. ${charge.text}` } };
  const status =
    subscription.status === 'active'
      ? 'Its status follows once its workflow has recorded the decline.'
      : `It is ${statusLabel(subscription.status)}: its dunning retries the charge on the account's schedule.`;
  return {
    subscription,
    invoice,
    outcome: { tone: charge.tone, text: `Subscription created, but its first charge failed. ${charge.text} ${status}` },
  };
}

/** An invoice email sent on request (POST /invoices/{id}/send answers it queued), once the mail server took it or refused it. */
export async function emailOutcome(queued: Email): Promise<Outcome> {
  const email = await readUntil(
    queued,
    () => api.GET('/emails/{id}', { params: { path: { id: queued.id } } }),
    (read) => read.status !== 'queued',
  );
  if (email.status === 'sent') return { tone: 'success', text: `Sent to ${email.to}.` };
  if (email.status === 'failed')
    return {
      tone: 'failure',
      text: `The email to ${email.to} failed: ${email.last_response ?? 'the mail server refused it'}.`,
    };
  return {
    tone: 'pending',
    text: `Queued for ${email.to}: it goes out as soon as the mail server takes it (its status is in Emails below).`,
  };
}
