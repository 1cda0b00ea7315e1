import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { components } from '../../client/schema';
import { api } from '../api/client';
import type { PlanPayment } from '../api/types';
import { formatDateTime, formatMoney, statusLabel } from '../components/format';
import { Link } from '../router';
import { Confirm, Empty, Failure, Loading, Notice } from '../components/common';

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
          busy={act.isPending}
          onConfirm={() => act.mutate('cancel')}
          onClose={() => setAsking(undefined)}
        >
          {act.isError && <Failure error={act.error} />}
        </Confirm>
      )}
      {asking === 'resolve' && (
        <Confirm
          title={`Resolve the terminal payment of ${formatMoney(payment.amount, payment.currency)}?`}
          message={
            state === 'approved_no_credential'
              ? 'The card was charged but not saved: say how the next installments are paid.'
              : 'Give the outcome you know from the terminal or its processor. This cannot be undone.'
          }
          confirm="Resolve"
          danger={false}
          busy={act.isPending}
          onConfirm={() => act.mutate('resolve')}
          onClose={() => setAsking(undefined)}
        >
          {state !== 'approved_no_credential' && (
            <fieldset className="choices">
              <legend>Outcome</legend>
              {(['approved', 'declined'] as const).map((value) => (
                <label key={value}>
                  <input
                    type="radio"
                    name="outcome"
                    value={value}
                    checked={outcome === value}
                    onChange={() => setOutcome(value)}
                  />
                  {value === 'approved' ? 'Approved (the customer paid)' : 'Declined (nothing was paid)'}
                </label>
              ))}
            </fieldset>
          )}
          {(outcome === 'approved' || state === 'approved_no_credential') && (
            <fieldset className="choices">
              <legend>Next installments</legend>
              <label>
                <input type="radio" name="next" checked={next === 'plan_card'} onChange={() => setNext('plan_card')} />
                The plan's card, as it is
              </label>
              <label>
                <input
                  type="radio"
                  name="next"
                  checked={next === 'payment_method'}
                  onChange={() => setNext('payment_method')}
                />
                A card of the customer
              </label>
              {next === 'payment_method' && (
                <label className="field">
                  <span>Payment method id</span>
                  <input
                    value={paymentMethod}
                    onChange={(event) => setPaymentMethod(event.target.value)}
                    placeholder="pm_…"
                    autoComplete="off"
                  />
                </label>
              )}
              <label>
                <input type="radio" name="next" checked={next === 'external'} onChange={() => setNext('external')} />
                Collected outside the service
              </label>
            </fieldset>
          )}
          {act.isError && <Failure error={act.error} />}
        </Confirm>
      )}
    </div>
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
  return (
    <section aria-labelledby="terminal-payments-title">
      <h2 id="terminal-payments-title">Terminal payments not settled</h2>
      <Notice text={notice} />
      {open.isPending ? (
        <Loading />
      ) : open.isError ? (
        <Failure error={open.error} />
      ) : open.data.data.length === 0 ? (
        <Empty>
          <p>No terminal payment is waiting or needs a resolution.</p>
        </Empty>
      ) : (
        <div className="card table-card">
          <table>
            <thead>
              <tr>
                <th scope="col">Customer</th>
                <th scope="col" className="hide-narrow">
                  State
                </th>
                <th scope="col">Amount</th>
                <th scope="col" className="hide-narrow">
                  Terminal
                </th>
                <th scope="col" className="hide-narrow">
                  Since
                </th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {open.data.data.map(({ payment, customer_name, terminal_label, since }) => (
                <tr key={payment.id}>
                  <td>
                    <Link to={`/payment-plans/${payment.plan}`}>{customer_name ?? payment.customer}</Link>
                    <div className="muted small">
                      {payment.deposit ? 'deposit' : 'installment payment'}
                      <span className="show-narrow">, {statusLabel(payment.terminal?.state ?? '')}</span>
                    </div>
                  </td>
                  <td className="hide-narrow">
                    {statusLabel(payment.terminal?.state ?? '')}
                    {payment.terminal?.cancel_requested && <div className="muted small">cancel requested</div>}
                  </td>
                  <td>{formatMoney(payment.amount, payment.currency)}</td>
                  <td className="hide-narrow">{terminal_label ?? <code>{payment.terminal?.id}</code>}</td>
                  <td className="hide-narrow">{formatDateTime(since)}</td>
                  <td>
                    <TerminalPaymentActions payment={payment} onDone={setNotice} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
