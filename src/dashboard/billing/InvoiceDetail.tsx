import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import {
  formatDate,
  formatDateTime,
  formatMoney,
  statusLabel,
  centsFromText,
  textFromCents,
} from '../components/format';
import { Link } from '../router';
import { InvoiceWhy } from './Why';
import {
  AmountField,
  Confirm,
  Failure,
  Loading,
  Notice,
  OutcomeNotice,
  ReadFailure,
  StatusBadge,
  useIdempotencyKeys,
  type Outcome,
} from '../components/common';
import { invoiceName } from './Invoices';
import { creditableOf, CreditNotesTable, IssueCreditNote } from './InvoiceCredits';
import { EmailTimeline, EventTimeline } from '../components/timelines';
import { SubscriptionLink } from '../components/links';
import { ACTIONS, actionsFor, runInvoiceAction, type Action } from './invoice-actions';
import { InvoiceLinks, Tax } from './InvoiceParts';

export function InvoiceDetail({ id }: { id: string }) {
  const queryClient = useQueryClient();
  const path = { params: { path: { id } } };
  const [asking, setAsking] = useState<Action>();
  const [notice, setNotice] = useState<string>();
  // What a charge, refund, credit note or email came to, once known (a decline is an outcome, not an error).
  const [outcome, setOutcome] = useState<Outcome>();
  const [refundText, setRefundText] = useState('');
  const [crediting, setCrediting] = useState(false);
  const invoice = useQuery({ queryKey: ['invoice', id], queryFn: () => api.GET('/invoices/{id}', path) });
  const finalized = invoice.isSuccess && invoice.data.status !== 'draft';
  const creditNotes = useQuery({
    queryKey: ['invoice', id, 'credit-notes'],
    queryFn: () => api.GET('/credit-notes', { params: { query: { invoice: id, take: 100 } } }),
    enabled: finalized,
  });
  const transactions = useQuery({
    queryKey: ['invoice', id, 'transactions'],
    queryFn: () => api.GET('/invoices/{id}/transactions', { params: { path: { id }, query: { take: 100 } } }),
    enabled: invoice.isSuccess,
  });
  const keys = useIdempotencyKeys();
  const act = useMutation({
    mutationFn: (action: Action) => runInvoiceAction(action, id, keys.keyFor, refundText),
    onSuccess: ({ invoice: answer, outcome: result }, action) => {
      keys.done();
      // The answer is the invoice as the change left it: shown at once, its transactions read again.
      queryClient.setQueryData(['invoice', id], answer);
      if (result) setOutcome(result);
      else setNotice(ACTIONS[action].done);
      void queryClient.invalidateQueries({ queryKey: ['invoice', id, 'transactions'] });
      void queryClient.invalidateQueries({ queryKey: ['invoice', id, 'credit-notes'] });
      // Its "why" (the customer's billing report), balance and emails changed with it.
      void queryClient.invalidateQueries({ queryKey: ['customer', answer.customer] });
      void queryClient.invalidateQueries({ queryKey: ['invoices'] });
      void queryClient.invalidateQueries({ queryKey: ['emails'] });
      void queryClient.invalidateQueries({ queryKey: ['events'] });
      // A subscription's invoice paid or voided ends its dunning: the subscription is read again when shown.
      if (answer.subscription) {
        void queryClient.invalidateQueries({ queryKey: ['subscription', answer.subscription] });
        void queryClient.invalidateQueries({ queryKey: ['subscriptions'] });
      }
    },
    // A declined charge is an answer too (402): the invoice and its transactions changed, so both are read again.
    onError: () => void queryClient.invalidateQueries({ queryKey: ['invoice', id] }),
    onSettled: () => setAsking(undefined),
  });

  if (invoice.isPending) return <Loading />;
  if (invoice.isError) return <ReadFailure error={invoice.error} kind="invoice" id={id} list="/invoices" />;
  const inv = invoice.data;
  const money = (minor: number) => formatMoney(minor, inv.currency);
  // The subtotal is before discount; what discounts took off follows it (docs/api.md, "Coupons and discounts").
  const discounted = inv.total_discount_amounts.reduce((sum, each) => sum + each.amount, 0);
  const refundInvalid = asking === 'refund' && refundText.trim() !== '' && centsFromText(refundText) === undefined;
  const notes = creditNotes.data?.data ?? [];
  // Proposed only once the credit notes are read: until then what is left is not known.
  const refundable = creditNotes.isSuccess ? creditableOf(inv, notes).card : 0;
  const creditable = inv.status === 'open' || (inv.status === 'paid' && creditNotes.isSuccess);
  return (
    <>
      <p className="crumbs">
        <Link to="/invoices">Invoices</Link> /
      </p>
      <div className="title-row">
        <h1>
          <code>{invoiceName(inv)}</code>
        </h1>
        <StatusBadge status={inv.status} />
      </div>
      <div className="actions">
        {actionsFor(inv, refundable).map((action) => (
          <button
            key={action}
            type="button"
            className={ACTIONS[action].danger ? 'danger' : 'secondary'}
            onClick={() => (
              act.reset(),
              setNotice(undefined),
              setOutcome(undefined),
              setRefundText(action === 'refund' ? textFromCents(refundable) : ''),
              setAsking(action)
            )}
          >
            {ACTIONS[action].label}
          </button>
        ))}
        {creditable && (
          <button
            type="button"
            className="secondary"
            onClick={() => (
              act.reset(),
              setNotice(undefined),
              setOutcome(undefined),
              setAsking(undefined),
              setCrediting(true)
            )}
          >
            Issue credit note
          </button>
        )}
        <InvoiceLinks invoice={inv} />
      </div>
      {crediting && (
        <IssueCreditNote
          invoice={inv}
          notes={notes}
          onClose={() => setCrediting(false)}
          onIssued={(issued) => (setCrediting(false), setOutcome(issued))}
        />
      )}
      <OutcomeNotice outcome={outcome} />
      <Notice text={notice} />
      {act.isError && <Failure error={act.error} />}
      {asking && (
        <Confirm
          title={`${ACTIONS[asking].label.replace(' invoice', '')} ${invoiceName(inv)}?`}
          message={ACTIONS[asking].question}
          confirm={ACTIONS[asking].label}
          danger={ACTIONS[asking].danger}
          busy={act.isPending || refundInvalid}
          onConfirm={() => act.mutate(asking)}
          onClose={() => setAsking(undefined)}
        >
          {asking === 'send' && (
            <p>
              To <strong>{inv.customer_email ?? 'the customer’s email'}</strong>.
            </p>
          )}
          {asking === 'refund' && (
            <AmountField
              label={`Amount in ${inv.currency.toUpperCase()} (at most ${money(refundable)}, what credit notes left)`}
              value={refundText}
              onChange={setRefundText}
              invalid={refundInvalid}
            />
          )}
        </Confirm>
      )}
      <dl className="card facts">
        <dt>Customer</dt>
        <dd>
          <Link to={`/customers/${inv.customer}`}>{inv.customer_name ?? inv.customer}</Link>
          {inv.customer_email && <div className="muted small">{inv.customer_email}</div>}
        </dd>
        {inv.subscription && (
          <>
            <dt>Subscription</dt>
            <dd>
              <SubscriptionLink id={inv.subscription} />
            </dd>
          </>
        )}
        <dt>Billing</dt>
        <dd>
          {statusLabel(inv.billing_reason)}, {statusLabel(inv.collection_method)}
        </dd>
        <dt>Period</dt>
        <dd>
          {formatDate(inv.period_start)} – {formatDate(inv.period_end)}
        </dd>
        {inv.due_date && (
          <>
            <dt>Due</dt>
            <dd>{formatDate(inv.due_date)}</dd>
          </>
        )}
        <dt>Created</dt>
        <dd>{formatDateTime(inv.created)}</dd>
        {inv.status_transitions.finalized_at && (
          <>
            <dt>Finalized</dt>
            <dd>{formatDateTime(inv.status_transitions.finalized_at)}</dd>
          </>
        )}
        {inv.status_transitions.paid_at && (
          <>
            <dt>Paid</dt>
            <dd>{formatDateTime(inv.status_transitions.paid_at)}</dd>
          </>
        )}
        {inv.status_transitions.voided_at && (
          <>
            <dt>Voided</dt>
            <dd>{formatDateTime(inv.status_transitions.voided_at)}</dd>
          </>
        )}
        <dt>Id</dt>
        <dd>
          <code>{inv.id}</code>
        </dd>
      </dl>
      {inv.status !== 'draft' && <InvoiceWhy invoice={inv} />}
      <h2>Lines</h2>
      <div className="card table-card">
        <table>
          <thead>
            <tr>
              <th scope="col">Description</th>
              <th scope="col" className="hide-narrow">
                Unit amount
              </th>
              <th scope="col">Quantity</th>
              <th scope="col" className="hide-narrow">
                Tax
              </th>
              <th scope="col">Amount</th>
            </tr>
          </thead>
          <tbody>
            {inv.lines.map((line) => (
              <tr key={line.id}>
                <td>
                  {line.description ?? (line.price ? <code>{line.price}</code> : '—')}
                  <div className="muted small">
                    {formatDate(line.period.start)} – {formatDate(line.period.end)}
                  </div>
                </td>
                <td className="hide-narrow">{money(line.unit_amount)}</td>
                <td>{line.quantity}</td>
                <td className="hide-narrow">
                  {line.tax_amounts.length === 0
                    ? '—'
                    : line.tax_amounts.map((tax) => (
                        <div key={tax.tax_rate}>
                          {money(tax.amount)} <span className="muted small">({tax.tax_behavior})</span>
                        </div>
                      ))}
                </td>
                <td>{money(line.amount)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <dl className="card totals">
        <dt>Subtotal</dt>
        <dd>{money(inv.subtotal)}</dd>
        {discounted > 0 && (
          <>
            <dt>Discount</dt>
            <dd>{money(-discounted)}</dd>
          </>
        )}
        {inv.total_tax_amounts.map((tax) => (
          <Tax key={tax.tax_rate} taxRate={tax.tax_rate} amount={money(tax.amount)} behavior={tax.tax_behavior} />
        ))}
        <dt className="grand">Total</dt>
        <dd className="grand">{money(inv.total)}</dd>
        {inv.applied_balance > 0 && (
          <>
            <dt>Customer credit used</dt>
            <dd>{money(inv.applied_balance)}</dd>
          </>
        )}
        {inv.applied_balance < 0 && (
          <>
            <dt>Credited to the customer’s balance</dt>
            <dd>{money(-inv.applied_balance)}</dd>
          </>
        )}
        <dt>Paid</dt>
        <dd>{money(inv.amount_paid)}</dd>
        {inv.pre_payment_credit_notes_amount + inv.post_payment_credit_notes_amount > 0 && (
          <>
            <dt>Credit notes</dt>
            <dd>{money(inv.pre_payment_credit_notes_amount + inv.post_payment_credit_notes_amount)}</dd>
          </>
        )}
        {inv.amount_refunded > 0 && (
          <>
            <dt>Refunded</dt>
            <dd>{money(inv.amount_refunded)}</dd>
          </>
        )}
        <dt className="grand">Amount due</dt>
        <dd className="grand">{money(inv.amount_remaining)}</dd>
      </dl>
      {notes.length > 0 && (
        <>
          <h2>Credit notes</h2>
          <CreditNotesTable notes={notes} />
        </>
      )}
      <h2>Transactions</h2>
      {transactions.isPending ? (
        <Loading />
      ) : transactions.isError ? (
        <Failure error={transactions.error} />
      ) : transactions.data.data.length === 0 ? (
        <p className="muted">No charge or refund yet.</p>
      ) : (
        <div className="card table-card">
          <table>
            <thead>
              <tr>
                <th scope="col">Transaction</th>
                <th scope="col">Status</th>
                <th scope="col">Amount</th>
                <th scope="col" className="hide-narrow">
                  Answer
                </th>
                <th scope="col" className="hide-narrow">
                  When
                </th>
              </tr>
            </thead>
            <tbody>
              {transactions.data.data.map((transaction) => (
                <tr key={transaction.id}>
                  <td>
                    {transaction.type}
                    {transaction.attempt ? ` (attempt ${transaction.attempt})` : ''}
                    <div className="muted small">
                      <code>{transaction.id}</code>
                    </div>
                  </td>
                  <td>
                    <StatusBadge status={transaction.status} />
                  </td>
                  <td>{formatMoney(transaction.amount, transaction.currency)}</td>
                  <td className="hide-narrow">
                    {transaction.failure_message
                      ? `${transaction.failure_message} (${transaction.failure_code})`
                      : (transaction.gateway_reference ?? '—')}
                  </td>
                  <td className="hide-narrow">{formatDateTime(transaction.created)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <EmailTimeline filter={{ invoice: inv.id }} version={inv.status} />
      <EventTimeline filter={{ object: inv.id }} version={inv.status} />
    </>
  );
}
