import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import type { Session } from '../api/types';
import { formatDate, formatDateTime, formatMoney, statusLabel } from '../components/format';
import { Link } from '../router';
import { Confirm, Failure, Loading, Notice, ReadFailure, StatusBadge, WorkflowLink } from '../components/common';
import { planProgress } from './PaymentPlans';
import { TerminalPaymentActions } from './TerminalPayments';
import { CustomerLink } from '../components/links';

const ENDED = ['completed', 'canceled', 'defaulted'];

export function PaymentPlanDetail({ id, session }: { id: string; session: Session }) {
  const queryClient = useQueryClient();
  const path = { params: { path: { id } } };
  const [asking, setAsking] = useState(false);
  const [notice, setNotice] = useState<string>();
  const plan = useQuery({
    queryKey: ['payment-plan', id],
    queryFn: () => api.GET('/payment-plans/{id}', path),
  });
  const installments = useQuery({
    queryKey: ['payment-plan', id, 'installments'],
    queryFn: () => api.GET('/payment-plans/{id}/installments', { params: { path: { id }, query: { take: 100 } } }),
    enabled: plan.isSuccess,
  });
  const payments = useQuery({
    queryKey: ['payment-plan', id, 'payments'],
    queryFn: () => api.GET('/payment-plans/{id}/payments', { params: { path: { id }, query: { take: 100 } } }),
    enabled: plan.isSuccess,
  });
  const cancel = useMutation({
    mutationFn: () => api.POST('/payment-plans/{id}/cancel', path),
    onSuccess: (updated) => {
      queryClient.setQueryData(['payment-plan', id], updated);
      void queryClient.invalidateQueries({ queryKey: ['payment-plans'] });
      setNotice('Canceled.');
      setAsking(false);
    },
  });

  if (plan.isPending) return <Loading />;
  if (plan.isError) return <ReadFailure error={plan.error} kind="payment plan" id={id} list="/payment-plans" />;
  const p = plan.data;
  const workflowUrl = `${session.temporal_workflows_url}/${encodeURIComponent(`payment-plan:${p.id}`)}`;
  const done = (message: string) => {
    setNotice(message);
    void queryClient.invalidateQueries({ queryKey: ['payment-plan', id] });
  };
  return (
    <>
      <p className="crumbs">
        <Link to="/payment-plans">Payment plans</Link> /
      </p>
      <div className="title-row">
        <h1>
          <code>{p.id}</code>
        </h1>
        <StatusBadge status={p.status} />
      </div>
      <div className="actions">
        {!ENDED.includes(p.status) && (
          <button
            type="button"
            className="danger"
            onClick={() => (cancel.reset(), setNotice(undefined), setAsking(true))}
          >
            Cancel plan
          </button>
        )}
        <WorkflowLink url={workflowUrl} />
      </div>
      <Notice text={notice} />
      {asking && (
        <Confirm
          title="Cancel this payment plan?"
          message="No installment is charged any more; what was paid stays paid. This cannot be undone."
          confirm="Cancel plan"
          danger
          busy={cancel.isPending}
          onConfirm={() => cancel.mutate()}
          onClose={() => setAsking(false)}
        >
          {cancel.isError && <Failure error={cancel.error} />}
        </Confirm>
      )}
      <dl className="card facts">
        <dt>Customer</dt>
        <dd>
          <CustomerLink id={p.customer} />
        </dd>
        <dt>Paid</dt>
        <dd>{planProgress(p)}</dd>
        <dt>Remaining</dt>
        <dd>{formatMoney(p.amount_remaining, p.currency)}</dd>
        {p.amount_overdue > 0 && (
          <>
            <dt>Overdue</dt>
            <dd>{formatMoney(p.amount_overdue, p.currency)}</dd>
          </>
        )}
        {p.amount_refunded > 0 && (
          <>
            <dt>Refunded</dt>
            <dd>{formatMoney(p.amount_refunded, p.currency)}</dd>
          </>
        )}
        <dt>Installments</dt>
        <dd>
          {p.installments_paid} of {p.installments_count} paid, every{' '}
          {p.interval_count === 1 ? p.interval : `${p.interval_count} ${p.interval}s`}
        </dd>
        <dt>Deposit</dt>
        <dd>
          {formatMoney(p.deposit.amount, p.currency)}, {statusLabel(p.deposit.status)}
          {p.deposit.attempt?.state && ` (terminal: ${statusLabel(p.deposit.attempt.state)})`}
        </dd>
        <dt>Next installment</dt>
        <dd>
          {p.next_installment
            ? `${formatMoney(p.next_installment.amount, p.currency)} on ${formatDate(p.next_installment.due_date)}`
            : '—'}
        </dd>
        {p.cancellation_reason && (
          <>
            <dt>Canceled</dt>
            <dd>
              {formatDateTime(p.canceled_at)}: {p.cancellation_reason}
            </dd>
          </>
        )}
        <dt>Created</dt>
        <dd>{formatDateTime(p.created)}</dd>
      </dl>
      <h2>Installments</h2>
      {installments.isPending ? (
        <Loading />
      ) : installments.isError ? (
        <Failure error={installments.error} />
      ) : (
        <div className="card table-card">
          <table>
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">Due</th>
                <th scope="col">Amount</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {installments.data.data.map((installment) => (
                <tr key={installment.number}>
                  <td>{installment.number}</td>
                  <td>{formatDate(installment.due_date)}</td>
                  <td>{formatMoney(installment.amount, installment.currency)}</td>
                  <td>
                    <StatusBadge status={installment.status} />
                    {installment.failure_message && <div className="muted small">{installment.failure_message}</div>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h2>Payments</h2>
      {payments.isPending ? (
        <Loading />
      ) : payments.isError ? (
        <Failure error={payments.error} />
      ) : payments.data.data.length === 0 ? (
        <p className="muted">No payment yet.</p>
      ) : (
        <div className="card table-card">
          <table>
            <thead>
              <tr>
                <th scope="col">Payment</th>
                <th scope="col">Status</th>
                <th scope="col">Amount</th>
                <th scope="col" className="hide-narrow">
                  How
                </th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {payments.data.data.map((payment) => (
                <tr key={payment.id}>
                  <td>
                    <code>{payment.id}</code>
                    <div className="muted small">{formatDateTime(payment.created)}</div>
                  </td>
                  <td>
                    <StatusBadge status={payment.status} />
                    {payment.failure_message && <div className="muted small">{payment.failure_message}</div>}
                  </td>
                  <td>{formatMoney(payment.amount, payment.currency)}</td>
                  <td className="hide-narrow">
                    {statusLabel(payment.method)}
                    {payment.terminal && ` (${statusLabel(payment.terminal.state)})`}
                  </td>
                  <td>
                    <TerminalPaymentActions payment={payment} onDone={done} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
