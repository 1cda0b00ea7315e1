import type { Invoice, Transaction } from '../api/types';
import { Fact } from '../components/facts';
import { formatDate, formatDateTime, formatMoney, statusLabel } from '../components/format';
import { SubscriptionLink } from '../components/links';
import { StatusBadge } from '../components/badges';
import { Table } from '../components/Table';
import { Link } from '../router';

/**
 * The invoice's document and its page for the customer, once finalized: the PDF (GET /invoices/{id}/pdf, read
 * with the session) and the hosted invoice page (`hosted_invoice_url`), each in a new tab.
 */
export function InvoiceLinks({ invoice }: { invoice: Invoice }) {
  if (invoice.number === null) return null;
  return (
    <>
      <a
        className="button-link"
        href={`/invoices/${encodeURIComponent(invoice.id)}/pdf`}
        target="_blank"
        rel="noreferrer"
        aria-label={`PDF of ${invoice.number}`}
      >
        PDF
      </a>
      {invoice.hosted_invoice_url && (
        <a
          className="button-link"
          href={invoice.hosted_invoice_url}
          target="_blank"
          rel="noreferrer"
          aria-label={`Hosted page of ${invoice.number}, as the customer sees it`}
        >
          Hosted page
        </a>
      )}
    </>
  );
}

function Tax({ taxRate, amount, behavior }: { taxRate: string; amount: string; behavior: string }) {
  return (
    <>
      <dt>
        Tax <code className="small">{taxRate}</code>
        {behavior === 'inclusive' ? ' (included)' : ''}
      </dt>
      <dd>{amount}</dd>
    </>
  );
}

/** Whom the invoice bills, for what, and when it was made, finalized, paid or voided. */
export function InvoiceFacts({ invoice: inv }: { invoice: Invoice }) {
  const { finalized_at, paid_at, voided_at } = inv.status_transitions;
  return (
    <dl className="card facts">
      <Fact term="Customer">
        <Link to={`/customers/${inv.customer}`}>{inv.customer_name ?? inv.customer}</Link>
        {inv.customer_email && <div className="muted small">{inv.customer_email}</div>}
      </Fact>
      <Fact term="Subscription">{inv.subscription && <SubscriptionLink id={inv.subscription} />}</Fact>
      <Fact term="Billing">
        {statusLabel(inv.billing_reason)}, {statusLabel(inv.collection_method)}
      </Fact>
      <Fact term="Period">
        {formatDate(inv.period_start)} – {formatDate(inv.period_end)}
      </Fact>
      <Fact term="Due">{inv.due_date && formatDate(inv.due_date)}</Fact>
      <Fact term="Created">{formatDateTime(inv.created)}</Fact>
      <Fact term="Finalized">{finalized_at && formatDateTime(finalized_at)}</Fact>
      <Fact term="Paid">{paid_at && formatDateTime(paid_at)}</Fact>
      <Fact term="Voided">{voided_at && formatDateTime(voided_at)}</Fact>
      <Fact term="Id">
        <code>{inv.id}</code>
      </Fact>
    </dl>
  );
}

/** The invoice's lines: what each bills, for which period, its tax and amount. */
export function InvoiceLines({ invoice: inv }: { invoice: Invoice }) {
  const money = (minor: number) => formatMoney(minor, inv.currency);
  return (
    <Table
      rows={inv.lines}
      rowKey={(line) => line.id}
      columns={[
        {
          header: 'Description',
          cell: (line) => line.description ?? (line.price ? <code>{line.price}</code> : '—'),
          note: (line) => `${formatDate(line.period.start)} – ${formatDate(line.period.end)}`,
        },
        { header: 'Unit amount', cell: (line) => money(line.unit_amount), wide: true },
        { header: 'Quantity', cell: (line) => line.quantity },
        {
          header: 'Tax',
          cell: (line) =>
            line.tax_amounts.length === 0
              ? '—'
              : line.tax_amounts.map((tax) => (
                  <div key={tax.tax_rate}>
                    {money(tax.amount)} <span className="muted small">({tax.tax_behavior})</span>
                  </div>
                )),
          wide: true,
        },
        { header: 'Amount', cell: (line) => money(line.amount) },
      ]}
    />
  );
}

/**
 * From the subtotal to the amount due: the subtotal is before discount, what discounts took off follows it
 * (docs/api.md, "Coupons and discounts"), then taxes, credit, payments, credit notes and refunds.
 */
export function InvoiceTotals({ invoice: inv }: { invoice: Invoice }) {
  const money = (minor: number) => formatMoney(minor, inv.currency);
  const discounted = inv.total_discount_amounts.reduce((sum, each) => sum + each.amount, 0);
  const credited = inv.pre_payment_credit_notes_amount + inv.post_payment_credit_notes_amount;
  return (
    <dl className="card totals">
      <Fact term="Subtotal">{money(inv.subtotal)}</Fact>
      <Fact term="Discount">{discounted > 0 && money(-discounted)}</Fact>
      {inv.total_tax_amounts.map((tax) => (
        <Tax key={tax.tax_rate} taxRate={tax.tax_rate} amount={money(tax.amount)} behavior={tax.tax_behavior} />
      ))}
      <Fact term="Total" className="grand">
        {money(inv.total)}
      </Fact>
      <Fact term="Customer credit used">{inv.applied_balance > 0 && money(inv.applied_balance)}</Fact>
      <Fact term="Credited to the customer’s balance">{inv.applied_balance < 0 && money(-inv.applied_balance)}</Fact>
      <Fact term="Paid">{money(inv.amount_paid)}</Fact>
      <Fact term="Credit notes">{credited > 0 && money(credited)}</Fact>
      <Fact term="Refunded">{inv.amount_refunded > 0 && money(inv.amount_refunded)}</Fact>
      <Fact term="Amount due" className="grand">
        {money(inv.amount_remaining)}
      </Fact>
    </dl>
  );
}

/** The invoice's charges and refunds, each with the processor's answer. */
export function InvoiceTransactions({
  transactions,
}: {
  transactions: { isPending: boolean; isError: boolean; error: unknown; data?: { data: Transaction[] } };
}) {
  return (
    <Table
      query={transactions}
      rows={transactions.data?.data}
      rowKey={(transaction) => transaction.id}
      quietEmpty
      empty="No charge or refund yet."
      columns={[
        {
          header: 'Transaction',
          cell: (transaction) => `${transaction.type}${transaction.attempt ? ` (attempt ${transaction.attempt})` : ''}`,
          note: (transaction) => <code>{transaction.id}</code>,
        },
        { header: 'Status', cell: (transaction) => <StatusBadge status={transaction.status} /> },
        { header: 'Amount', cell: (transaction) => formatMoney(transaction.amount, transaction.currency) },
        {
          header: 'Answer',
          cell: (transaction) =>
            transaction.failure_message
              ? `${transaction.failure_message} (${transaction.failure_code})`
              : (transaction.gateway_reference ?? '—'),
          wide: true,
        },
        { header: 'When', cell: (transaction) => formatDateTime(transaction.created), wide: true },
      ]}
    />
  );
}
