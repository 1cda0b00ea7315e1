import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import type { Invoice, Transaction } from '../api/types';
import { formatMoney, centsFromText, statusLabel, textFromCents } from '../components/format';
import { Link } from '../router';
import { InvoiceWhy } from './Why';
import {
  AmountField,
  DisputeBadge,
  Failure,
  Loading,
  Notice,
  OutcomeNotice,
  ReadFailure,
  StatusBadge,
  useIdempotencyKeys,
  type Outcome,
} from '../components/common';
import { Confirm } from '../components/dialogs';
import { PaymentPendingBadge } from '../components/badges';
import { invoiceName } from './Invoices';
import { creditableOf, CreditNotesTable, IssueCreditNote } from './InvoiceCredits';
import { EmailTimeline, EventTimeline } from '../components/timelines';
import {
  ACTIONS,
  actionsFor,
  canIssueCreditNote,
  disputeHoldsFunds,
  runInvoiceAction,
  type Action,
} from './invoice-actions';
import { InvoiceFacts, InvoiceLines, InvoiceLinks, InvoiceTotals, InvoiceTransactions } from './InvoiceParts';

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
  const refundInvalid = asking === 'refund' && refundText.trim() !== '' && centsFromText(refundText) === undefined;
  const notes = creditNotes.data?.data ?? [];
  // Proposed only once the credit notes are read: until then what is left is not known.
  const refundable = creditNotes.isSuccess ? creditableOf(inv, notes).card : 0;
  const creditable = canIssueCreditNote(inv, creditNotes.isSuccess);
  const startOver = () => (act.reset(), setNotice(undefined), setOutcome(undefined));
  return (
    <>
      <p className="crumbs">
        <Link to="/invoices">Invoices</Link> /
      </p>
      <div className="title-row">
        <h1>
          <code>{invoiceName(inv)}</code>
        </h1>
        <InvoiceBadges invoice={inv} transactions={transactions.data?.data} />
      </div>
      <InvoiceActionButtons
        invoice={inv}
        transactions={transactions.data?.data}
        refundable={refundable}
        creditable={creditable}
        onAction={(action) => (
          startOver(),
          setRefundText(action === 'refund' ? textFromCents(refundable) : ''),
          setAsking(action)
        )}
        onCredit={() => (startOver(), setAsking(undefined), setCrediting(true))}
      />
      <DisputeHold invoice={inv} />
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
        <InvoiceQuestion
          invoice={inv}
          action={asking}
          busy={act.isPending}
          refund={{ text: refundText, onText: setRefundText, invalid: refundInvalid, most: refundable }}
          onConfirm={() => act.mutate(asking)}
          onClose={() => setAsking(undefined)}
        />
      )}
      <InvoiceFacts invoice={inv} />
      {inv.status !== 'draft' && <InvoiceWhy invoice={inv} />}
      <h2>Lines</h2>
      <InvoiceLines invoice={inv} />
      <InvoiceTotals invoice={inv} />
      {notes.length > 0 && (
        <>
          <h2>Credit notes</h2>
          <CreditNotesTable notes={notes} />
        </>
      )}
      <h2>Transactions</h2>
      <InvoiceTransactions transactions={transactions} />
      <EmailTimeline filter={{ invoice: inv.id }} version={inv.status} />
      <EventTimeline filter={{ object: inv.id }} version={inv.status} />
    </>
  );
}

/** The invoice's status, and beside it a dispute or a payment its processor holds. */
function InvoiceBadges({ invoice, transactions }: { invoice: Invoice; transactions: Transaction[] | undefined }) {
  return (
    <>
      <StatusBadge status={invoice.status} />
      {invoice.dispute ? <DisputeBadge dispute={invoice.dispute} /> : null}
      {heldPayment(invoice, transactions) ? <PaymentPendingBadge /> : null}
    </>
  );
}

/** Why a disputed invoice offers no refund and no credit note while the processor holds its money. */
function DisputeHold({ invoice }: { invoice: Invoice }) {
  if (!disputeHoldsFunds(invoice)) return null;
  return (
    <p className="muted">
      This payment is disputed ({statusLabel(invoice.dispute!.status)}): the processor holds its money, so it cannot be
      refunded or credited unless the dispute is won.
    </p>
  );
}

/** A payment its processor holds (a bank debit), not one waiting for the customer to authenticate it. */
function heldPayment(invoice: Invoice, transactions: Transaction[] | undefined): boolean {
  return (
    invoice.status === 'open' &&
    (transactions ?? []).some(
      (entry) =>
        entry.type === 'payment' &&
        entry.status === 'pending' &&
        entry.gateway_reference !== null &&
        entry.failure_code !== 'authentication_required',
    )
  );
}

/** What can be done to the invoice as it is now, the credit note when one can be issued, its PDF and hosted page. */
function InvoiceActionButtons(props: {
  invoice: Invoice;
  transactions: Transaction[] | undefined;
  refundable: number;
  creditable: boolean;
  onAction: (action: Action) => void;
  onCredit: () => void;
}) {
  return (
    <div className="actions">
      {actionsFor(props.invoice, props.refundable, heldPayment(props.invoice, props.transactions)).map((action) => (
        <button
          key={action}
          type="button"
          className={ACTIONS[action].danger ? 'danger' : 'secondary'}
          onClick={() => props.onAction(action)}
        >
          {ACTIONS[action].label}
        </button>
      ))}
      {props.creditable && (
        <button type="button" className="secondary" onClick={props.onCredit}>
          Issue credit note
        </button>
      )}
      <InvoiceLinks invoice={props.invoice} />
    </div>
  );
}

/** The question before an action on the invoice: to whom it is sent, or how much of it is refunded. */
function InvoiceQuestion(props: {
  invoice: Invoice;
  action: Action;
  busy: boolean;
  refund: { text: string; onText: (text: string) => void; invalid: boolean; most: number };
  onConfirm: () => void;
  onClose: () => void;
}) {
  const { invoice: inv, action } = props;
  return (
    <Confirm
      title={`${ACTIONS[action].label.replace(' invoice', '')} ${invoiceName(inv)}?`}
      message={ACTIONS[action].question}
      confirm={ACTIONS[action].label}
      danger={ACTIONS[action].danger}
      action={{ isPending: props.busy }}
      disabled={props.refund.invalid}
      onConfirm={props.onConfirm}
      onClose={props.onClose}
    >
      {action === 'send' && (
        <p>
          To <strong>{inv.customer_email ?? 'the customer’s email'}</strong>.
        </p>
      )}
      {action === 'refund' && (
        <AmountField
          label={`Amount in ${inv.currency.toUpperCase()} (at most ${formatMoney(props.refund.most, inv.currency)}, what credit notes left)`}
          value={props.refund.text}
          onChange={props.refund.onText}
          invalid={props.refund.invalid}
        />
      )}
    </Confirm>
  );
}
