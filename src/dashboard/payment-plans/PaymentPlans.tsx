import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import type { PaymentPlan } from '../api/types';
import { formatDate, formatMoney, statusLabel } from '../components/format';
import { listAddress, navigate, oneOf, useLocation } from '../router';
import { StatusBadge } from '../components/badges';
import { StatusTabs } from '../components/lists';
import { Table } from '../components/Table';
import { TerminalPayments } from './TerminalPayments';

const TAKE = 20;
const STATUSES = ['pending', 'active', 'past_due', 'defaulted', 'completed', 'canceled'] as const;

/** `$120.00 of $300.00`: what a plan has collected of its total. */
export function planProgress(plan: PaymentPlan): string {
  return `${formatMoney(plan.amount_paid, plan.currency)} of ${formatMoney(plan.total_amount, plan.currency)}`;
}

/** Payment plans by status, with the terminal payments support acts on above them. */
export function PaymentPlans() {
  const { search } = useLocation();
  const status = search.get('status') ?? '';
  const page = Math.max(1, Number(search.get('page')) || 1);
  const go = (nextPage: number) =>
    navigate(listAddress('/payment-plans', { status, page: nextPage }), { replace: true });
  const plans = useQuery({
    queryKey: ['payment-plans', { status, page }],
    queryFn: () =>
      api.GET('/payment-plans', {
        params: { query: { page, take: TAKE, include: 'names', status: oneOf(status, STATUSES) } },
      }),
    placeholderData: keepPreviousData,
  });

  return (
    <>
      <h1>Payment plans</h1>
      <TerminalPayments />
      <h2>Plans</h2>
      <StatusTabs
        statuses={STATUSES}
        current={status}
        to={(value) => `/payment-plans${value ? `?status=${value}` : ''}`}
      />
      <Table
        query={plans}
        rows={plans.data?.data}
        rowKey={(plan) => plan.id}
        empty={status ? `No ${statusLabel(status)} payment plan.` : 'No payment plans yet.'}
        columns={[
          { header: 'Plan', cell: (plan) => <code>{plan.id}</code>, link: (plan) => `/payment-plans/${plan.id}` },
          { header: 'Status', cell: (plan) => <StatusBadge status={plan.status} /> },
          { header: 'Paid', cell: planProgress },
          {
            header: 'Next installment',
            cell: (plan) =>
              plan.next_installment
                ? `${formatMoney(plan.next_installment.amount, plan.currency)} on ${formatDate(plan.next_installment.due_date)}`
                : '—',
            wide: true,
          },
          {
            header: 'Customer',
            cell: (plan) => plan.customer_name ?? <code>{plan.customer}</code>,
            link: (plan) => `/customers/${plan.customer}`,
            wide: true,
          },
        ]}
        pages={{ list: plans.data, page, onPage: go }}
      />
    </>
  );
}
