import type { CustomerReport, Invoice, Subscription } from '../api/types';
import { Failure, Loading } from '../components/feedback';
import { formatDate, formatDateTime, formatMoney, statusLabel } from '../components/format';
import { secondsOf, useBillingReport } from './report';

type Charge = CustomerReport['charges'][number];
type Dunning = CustomerReport['subscriptions'][number]['dunning'][number];

function chargeSentence(charge: Charge): string {
  const card = charge.payment_method
    ? `${charge.payment_method.brand ?? 'card'} ****${charge.payment_method.last4}`
    : 'no payment method';
  const answer =
    charge.processor.outcome === 'failed'
      ? `declined${charge.processor.failure_code ? ` (${charge.processor.failure_code})` : ''}`
      : charge.processor.outcome;
  return `${formatDateTime(secondsOf(charge.at))}: ${charge.amount} on ${card}, ${answer}. Why: ${charge.reason}.`;
}

function dunningSentence(dunning: Dunning): string {
  const next = dunning.next_retry
    ? `next: ${dunning.next_retry} on ${formatDateTime(secondsOf(dunning.next_retry_at))}`
    : 'no retry is left';
  return `Unpaid after ${dunning.charges_made} charge${dunning.charges_made === 1 ? '' : 's'}; ${next}; if the retries fail: ${statusLabel(dunning.when_retries_fail)}.`;
}

function WhyCard({ lines, pending, error }: { lines: string[]; pending: boolean; error: unknown }) {
  return (
    <section aria-labelledby="why-title">
      <h2 id="why-title">Why</h2>
      {pending ? (
        <Loading />
      ) : error ? (
        <Failure error={error} />
      ) : (
        <div className="card why">
          {lines.map((line) => (
            <p key={line}>{line}</p>
          ))}
        </div>
      )}
    </section>
  );
}

/** An invoice in plain words: what it bills, each charge with its card and answer, and what comes next. */
export function InvoiceWhy({ invoice }: { invoice: Invoice }) {
  const report = useBillingReport(invoice.customer);
  const bills = invoice.lines.map((line) =>
    `${line.quantity} × ${formatMoney(line.unit_amount, line.currency)} ${line.description ?? line.price ?? ''} = ${formatMoney(line.amount_excluding_tax, line.currency)}`.replace(
      /\s+=/,
      ' =',
    ),
  );
  const lines = [
    `It bills ${invoice.subscription ? `subscription ${invoice.subscription}` : 'a one-off charge'} for ${formatDate(invoice.period_start)} to ${formatDate(invoice.period_end)}: ${bills.join('; ')}; tax ${formatMoney(invoice.tax, invoice.currency)}, total ${formatMoney(invoice.total, invoice.currency)}.`,
  ];
  const charges = report.data?.charges.filter((charge) => charge.invoice === invoice.id) ?? [];
  lines.push(...charges.map(chargeSentence));
  const dunning = report.data?.subscriptions.flatMap((row) => row.dunning).find((row) => row.invoice === invoice.id);
  if (dunning) lines.push(dunningSentence(dunning));
  else if (charges.length === 0 && invoice.status === 'open')
    lines.push(
      invoice.collection_method === 'send_invoice'
        ? `Sent to the customer, who pays it${invoice.due_date ? ` by ${formatDate(invoice.due_date)}` : ''}.`
        : 'No charge has been made yet.',
    );
  return <WhyCard lines={lines} pending={report.isPending} error={report.error} />;
}

/** A subscription in plain words: where it is, its charges and why, dunning, and what comes next. */
export function SubscriptionWhy({ subscription }: { subscription: Subscription }) {
  const report = useBillingReport(subscription.customer);
  const view = report.data?.subscriptions.find((row) => row.id === subscription.id);
  const invoiceIds = new Set(
    report.data?.invoices.filter((row) => row.subscription === subscription.id).map((row) => row.id),
  );
  const lines: string[] = [];
  const charges = report.data?.charges.filter((charge) => charge.invoice && invoiceIds.has(charge.invoice)) ?? [];
  if (charges.length === 0) lines.push('No charge has been made for it yet.');
  lines.push(...charges.map(chargeSentence));
  for (const dunning of view?.dunning ?? [])
    lines.push(`Invoice ${dunning.invoice_number ?? dunning.invoice}: ${dunningSentence(dunning)}`);
  lines.push(
    view?.next
      ? `Next: ${view.next.what} on ${formatDateTime(secondsOf(view.next.at))}.`
      : 'Nothing more is scheduled.',
  );
  return <WhyCard lines={lines} pending={report.isPending} error={report.error} />;
}
