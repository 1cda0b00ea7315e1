import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import type { PaymentPlan, PlanPayment, Session } from '../api/types';
import type { QueryState } from '../components/feedback';
import { formatDate, formatDateTime, formatMoney, statusLabel } from '../components/format';
import { Link } from '../router';
import { StatusBadge } from '../components/badges';
import { Loading, Notice, ReadFailure } from '../components/feedback';
import { WorkflowLink } from '../components/links';
import { Confirm } from '../components/dialogs';
import { planProgress } from './PaymentPlans';
import { TerminalPaymentActions } from './TerminalPayments';
import { Fact } from '../components/facts';
import { CustomerLink } from '../components/links';
import { Table } from '../components/Table';

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
          action={cancel}
          onConfirm={() => cancel.mutate()}
          onClose={() => setAsking(false)}
        ></Confirm>
      )}
      <PlanFacts plan={p} />
      <h2>Installments</h2>
      <Table
        query={installments}
        rows={installments.data?.data}
        rowKey={(installment) => installment.number}
        columns={[
          { header: '#', cell: (installment) => installment.number },
          { header: 'Due', cell: (installment) => formatDate(installment.due_date) },
          { header: 'Amount', cell: (installment) => formatMoney(installment.amount, installment.currency) },
          {
            header: 'Status',
            cell: (installment) => <StatusBadge status={installment.status} />,
            note: (installment) => installment.failure_message,
          },
        ]}
      />
      <h2>Payments</h2>
      <PlanPayments payments={payments} onDone={done} />
    </>
  );
}

/** The plan's payments (deposit and installments), each with what support can do to a terminal one. */
function PlanPayments(props: { payments: QueryState<{ data: PlanPayment[] }>; onDone: (message: string) => void }) {
  return (
    <Table
      query={props.payments}
      rows={props.payments.data?.data}
      rowKey={(payment) => payment.id}
      quietEmpty
      empty="No payment yet."
      columns={[
        {
          header: 'Payment',
          cell: (payment) => <code>{payment.id}</code>,
          note: (payment) => formatDateTime(payment.created),
        },
        {
          header: 'Status',
          cell: (payment) => <StatusBadge status={payment.status} />,
          note: (payment) => payment.failure_message,
        },
        { header: 'Amount', cell: (payment) => formatMoney(payment.amount, payment.currency) },
        {
          header: 'How',
          cell: (payment) =>
            `${statusLabel(payment.method)}${payment.terminal ? ` (${statusLabel(payment.terminal.state)})` : ''}`,
          wide: true,
        },
        {
          header: 'Actions',
          headerHidden: true,
          cell: (payment) => <TerminalPaymentActions payment={payment} onDone={props.onDone} />,
        },
      ]}
    />
  );
}

/** What the plan has collected and has left, its installments, its deposit, and when it ended if it has. */
function PlanFacts({ plan: p }: { plan: PaymentPlan }) {
  const money = (amount: number) => formatMoney(amount, p.currency);
  return (
    <dl className="card facts">
      <Fact term="Customer">
        <CustomerLink id={p.customer} />
      </Fact>
      <Fact term="Paid">{planProgress(p)}</Fact>
      <Fact term="Remaining">{money(p.amount_remaining)}</Fact>
      <Fact term="Overdue">{p.amount_overdue > 0 && money(p.amount_overdue)}</Fact>
      <Fact term="Refunded">{p.amount_refunded > 0 && money(p.amount_refunded)}</Fact>
      <Fact term="Installments">
        {p.installments_paid} of {p.installments_count} paid, every{' '}
        {p.interval_count === 1 ? p.interval : `${p.interval_count} ${p.interval}s`}
      </Fact>
      <Fact term="Deposit">
        {money(p.deposit.amount)}, {statusLabel(p.deposit.status)}
        {p.deposit.attempt?.state && ` (terminal: ${statusLabel(p.deposit.attempt.state)})`}
      </Fact>
      <Fact term="Next installment">
        {p.next_installment ? `${money(p.next_installment.amount)} on ${formatDate(p.next_installment.due_date)}` : '—'}
      </Fact>
      <Fact term="Canceled">
        {p.cancellation_reason && `${formatDateTime(p.canceled_at)}: ${p.cancellation_reason}`}
      </Fact>
      <Fact term="Created">{formatDateTime(p.created)}</Fact>
    </dl>
  );
}
