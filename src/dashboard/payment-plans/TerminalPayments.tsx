import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { components } from '../../client/schema';
import { api } from '../api/client';
import type { PlanPayment } from '../api/types';
import { formatDateTime, formatMoney, statusLabel } from '../components/format';
import { Confirm } from '../components/dialogs';
import { Notice } from '../components/feedback';
import { Choices } from '../components/form';
import { Table } from '../components/Table';

/** Terminal states a person can still act on: resolve (the outcome known from elsewhere) or, while waiting, cancel. */
const OPEN_STATES = ['waiting', 'resolving', 'approved_no_credential'];

type Outcome = 'approved' | 'declined';
type NextPayments = 'plan_card' | 'payment_method' | 'external';

/** The body of POST .../resolve for what the person chose (docs/api.md, payment plans: resolving a terminal payment). */
function resolutionBody(
  state: string,
  outcome: Outcome,
  next: NextPayments,
  paymentMethod: string,
): components['schemas']['TerminalPaymentResolve'] {
  // approved_no_credential implies its outcome: the body names none.
  const known = state === 'approved_no_credential' ? {} : { outcome };
  if (outcome === 'approved') {
    const approved = state === 'approved_no_credential' ? {} : { outcome };
    if (next === 'external') return { ...approved, external: true };
    if (next === 'payment_method') return { ...approved, payment_method: paymentMethod.trim() };
  }
  return known;
}

/**
 * Resolve and cancel for one terminal payment, with the same rules as the support command
 * (`npm run support -- terminal:resolve` / `terminal:cancel`): the API refuses what the workflow would,
 * and its message is shown.
 */
export function TerminalPaymentActions({
  payment,
  onDone,
}: {
  payment: PlanPayment;
  onDone: (notice: string) => void;
}) {
  const queryClient = useQueryClient();
  const [asking, setAsking] = useState<'resolve' | 'cancel'>();
  const [outcome, setOutcome] = useState<Outcome>('approved');
  const [next, setNext] = useState<NextPayments>('plan_card');
  const [paymentMethod, setPaymentMethod] = useState('');
  const state = payment.terminal?.state ?? '';
  const path = { params: { path: { id: payment.plan, payment_id: payment.id } } };
  const resolution = resolutionBody(state, outcome, next, paymentMethod);
  const act = useMutation({
    mutationFn: (action: 'resolve' | 'cancel') =>
      action === 'resolve'
        ? api.POST('/payment-plans/{id}/payments/{payment_id}/resolve', { ...path, body: resolution })
        : api.POST('/payment-plans/{id}/payments/{payment_id}/cancel', path),
    onSuccess: (updated, action) => {
      void queryClient.invalidateQueries({ queryKey: ['terminal-payments'] });
      void queryClient.invalidateQueries({ queryKey: ['payment-plan', payment.plan] });
      onDone(
        action === 'resolve'
          ? `Payment ${updated.id} resolved: ${statusLabel(updated.status)}.`
          : `The terminal was asked to cancel payment ${updated.id}.`,
      );
      setAsking(undefined);
    },
  });
  if (!OPEN_STATES.includes(state)) return null;
  const canCancel = state === 'waiting' && !payment.terminal?.cancel_requested;
  const open = (action: 'resolve' | 'cancel') => (act.reset(), setAsking(action));
  return (
    <div className="row-actions">
      <button type="button" className="secondary" onClick={() => open('resolve')}>
        Resolve
      </button>
      {canCancel && (
        <button type="button" className="secondary" onClick={() => open('cancel')}>
          Cancel sale
        </button>
      )}
      {asking === 'cancel' && (
        <Confirm
          title="Cancel the sale on the terminal?"
          message={`The terminal is asked to cancel the sale of ${formatMoney(payment.amount, payment.currency)}; the payment ends cancelled when it confirms.`}
          confirm="Cancel sale"
          danger
          action={act}
          onConfirm={() => act.mutate('cancel')}
          onClose={() => setAsking(undefined)}
        ></Confirm>
      )}
      {asking === 'resolve' && (
        <ResolveQuestion
          payment={payment}
          choice={{ outcome, next, paymentMethod }}
          onChoice={{ outcome: setOutcome, next: setNext, paymentMethod: setPaymentMethod }}
          action={act}
          onConfirm={() => act.mutate('resolve')}
          onClose={() => setAsking(undefined)}
        />
      )}
    </div>
  );
}

/** What a person knows of a terminal payment's outcome, and how the next installments are paid after an approval. */
function ResolveQuestion(props: {
  payment: PlanPayment;
  choice: { outcome: Outcome; next: NextPayments; paymentMethod: string };
  onChoice: {
    outcome: (outcome: Outcome) => void;
    next: (next: NextPayments) => void;
    paymentMethod: (id: string) => void;
  };
  action: { isPending: boolean; error: unknown };
  onConfirm: () => void;
  onClose: () => void;
}) {
  const { payment, choice, onChoice } = props;
  const charged = payment.terminal?.state === 'approved_no_credential';
  return (
    <Confirm
      title={`Resolve the terminal payment of ${formatMoney(payment.amount, payment.currency)}?`}
      message={
        charged
          ? 'The card was charged but not saved: say how the next installments are paid.'
          : 'Give the outcome you know from the terminal or its processor. This cannot be undone.'
      }
      confirm="Resolve"
      danger={false}
      action={props.action}
      onConfirm={props.onConfirm}
      onClose={props.onClose}
    >
      {!charged && (
        <Choices
          legend="Outcome"
          name="outcome"
          options={[
            { value: 'approved', label: 'Approved (the customer paid)' },
            { value: 'declined', label: 'Declined (nothing was paid)' },
          ]}
          value={choice.outcome}
          onValue={onChoice.outcome}
        />
      )}
      {(choice.outcome === 'approved' || charged) && (
        <fieldset className="choices">
          <legend>Next installments</legend>
          <label>
            <input
              type="radio"
              name="next"
              checked={choice.next === 'plan_card'}
              onChange={() => onChoice.next('plan_card')}
            />
            The plan's card, as it is
          </label>
          <label>
            <input
              type="radio"
              name="next"
              checked={choice.next === 'payment_method'}
              onChange={() => onChoice.next('payment_method')}
            />
            A card of the customer
          </label>
          {choice.next === 'payment_method' && (
            <label className="field">
              <span>Payment method id</span>
              <input
                value={choice.paymentMethod}
                onChange={(event) => onChoice.paymentMethod(event.target.value)}
                placeholder="pm_…"
                autoComplete="off"
              />
            </label>
          )}
          <label>
            <input
              type="radio"
              name="next"
              checked={choice.next === 'external'}
              onChange={() => onChoice.next('external')}
            />
            Collected outside the service
          </label>
        </fieldset>
      )}
    </Confirm>
  );
}

/** The support staff's list: every terminal payment of the account that is not settled yet, oldest first. */
export function TerminalPayments() {
  const [notice, setNotice] = useState<string>();
  const open = useQuery({
    queryKey: ['terminal-payments'],
    queryFn: () => api.GET('/terminal-payments'),
    refetchInterval: 15_000,
  });
  const stateOf = (payment: PlanPayment) => statusLabel(payment.terminal?.state ?? '');
  return (
    <section aria-labelledby="terminal-payments-title">
      <h2 id="terminal-payments-title">Terminal payments not settled</h2>
      <Notice text={notice} />
      <Table
        query={open}
        rows={open.data?.data}
        rowKey={({ payment }) => payment.id}
        empty="No terminal payment is waiting or needs a resolution."
        columns={[
          {
            header: 'Customer',
            cell: ({ payment, customer_name }) => customer_name ?? payment.customer,
            link: ({ payment }) => `/payment-plans/${payment.plan}`,
            note: ({ payment }) => (
              <>
                {payment.deposit ? 'deposit' : 'installment payment'}
                <span className="show-narrow">, {stateOf(payment)}</span>
              </>
            ),
          },
          {
            header: 'State',
            cell: ({ payment }) => stateOf(payment),
            note: ({ payment }) => payment.terminal?.cancel_requested && 'cancel requested',
            wide: true,
          },
          { header: 'Amount', cell: ({ payment }) => formatMoney(payment.amount, payment.currency) },
          {
            header: 'Terminal',
            cell: ({ payment, terminal_label }) => terminal_label ?? <code>{payment.terminal?.id}</code>,
            wide: true,
          },
          { header: 'Since', cell: ({ since }) => formatDateTime(since), wide: true },
          {
            header: 'Actions',
            headerHidden: true,
            cell: ({ payment }) => <TerminalPaymentActions payment={payment} onDone={setNotice} />,
          },
        ]}
      />
    </section>
  );
}
