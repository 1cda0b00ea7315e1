import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import type { PaymentPlan } from '../api/types';
import { formatDate, formatMoney, statusLabel } from '../components/format';
import { Link, listAddress, navigate, oneOf, useLocation } from '../router';
import { Empty, Failure, Loading, PagesOf, StatusBadge, StatusTabs } from '../components/common';
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
      {plans.isPending ? (
        <Loading />
      ) : plans.isError ? (
        <Failure error={plans.error} />
      ) : plans.data.data.length === 0 ? (
        <Empty>
          <p>{status ? `No ${statusLabel(status)} payment plan.` : 'No payment plans yet.'}</p>
        </Empty>
      ) : (
        <div className="card table-card">
          <table>
            <thead>
              <tr>
                <th scope="col">Plan</th>
                <th scope="col">Status</th>
                <th scope="col">Paid</th>
                <th scope="col" className="hide-narrow">
                  Next installment
                </th>
                <th scope="col" className="hide-narrow">
                  Customer
                </th>
              </tr>
            </thead>
            <tbody>
              {plans.data.data.map((plan) => (
                <tr key={plan.id}>
                  <td>
                    <Link to={`/payment-plans/${plan.id}`}>
                      <code>{plan.id}</code>
                    </Link>
                  </td>
                  <td>
                    <StatusBadge status={plan.status} />
                  </td>
                  <td>{planProgress(plan)}</td>
                  <td className="hide-narrow">
                    {plan.next_installment
                      ? `${formatMoney(plan.next_installment.amount, plan.currency)} on ${formatDate(plan.next_installment.due_date)}`
                      : '—'}
                  </td>
                  <td className="hide-narrow">
                    <Link to={`/customers/${plan.customer}`}>{plan.customer_name ?? <code>{plan.customer}</code>}</Link>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <PagesOf list={plans.data} page={page} onPage={go} />
    </>
  );
}
