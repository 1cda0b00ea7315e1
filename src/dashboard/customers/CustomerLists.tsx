import { useQuery } from '@tanstack/react-query';
import { api, ApiFailure } from '../api/client';
import { StatusBadge } from '../components/badges';
import { Loaded, Empty } from '../components/feedback';
import { formatDate, formatDateTime, formatMoney, statusLabel } from '../components/format';
import { Table } from '../components/Table';
import { Link } from '../router';
import { SUBSCRIPTION_COLUMNS } from '../subscriptions/columns';

/** The lists of a customer's page, each read on its own (GET .../{customer} lists). */

const ofCustomer = (customerId: string) => ({ params: { path: { externalKey: customerId }, query: { take: 100 } } });

/**
 * The customer's balance transactions, newest first (docs/decisions.md §22), as credit: the API's negative
 * amount (Stripe's sign) is credit added, shown "+"; the credit left after each.
 */
export function BalanceHistory({ customerId }: { customerId: string }) {
  const entries = useQuery({
    queryKey: ['customer', customerId, 'balance-transactions'],
    queryFn: () => api.GET('/customers/{externalKey}/balance-transactions', ofCustomer(customerId)),
  });
  return (
    <Table
      query={entries}
      rows={entries.data?.data}
      rowKey={(entry) => entry.id}
      caption="Balance transactions"
      empty="No credit yet: credit notes to the balance and invoices below zero add to it."
      columns={[
        {
          header: 'Entry',
          cell: (entry) => statusLabel(entry.type),
          note: (entry) =>
            entry.invoice ? (
              <Link to={`/invoices/${entry.invoice}`}>{entry.description ?? entry.invoice}</Link>
            ) : (
              (entry.description ?? entry.credit_note ?? '')
            ),
        },
        {
          header: 'Credit change',
          cell: (entry) => `${entry.amount < 0 ? '+' : ''}${formatMoney(-entry.amount, entry.currency)}`,
        },
        { header: 'Credit after', cell: (entry) => formatMoney(-entry.ending_balance, entry.currency) },
        { header: 'When', cell: (entry) => formatDateTime(entry.created), wide: true },
      ]}
    />
  );
}

export function PaymentMethods({ customerId }: { customerId: string }) {
  const methods = useQuery({
    queryKey: ['customer', customerId, 'payment-methods'],
    queryFn: () => api.GET('/customers/{externalKey}/payment-methods', ofCustomer(customerId)),
  });
  return (
    <Loaded query={methods}>
      {({ data }) =>
        data.length === 0 ? (
          <Empty>
            <p>No payment method.</p>
          </Empty>
        ) : (
          <ul className="card list">
            {data.map((method) => (
              <li key={method.id}>
                {method.card ? (
                  <>
                    <strong className="capitalize">{method.card.brand ?? 'Card'}</strong> ending {method.card.last4}
                    {method.card.exp_month && (
                      <span className="muted">
                        {' '}
                        · expires {String(method.card.exp_month).padStart(2, '0')}/{method.card.exp_year}
                      </span>
                    )}
                  </>
                ) : method.us_bank_account ? (
                  <>
                    <strong>{method.us_bank_account.bank_name}</strong> account ending {method.us_bank_account.last4}
                  </>
                ) : (
                  method.type
                )}
              </li>
            ))}
          </ul>
        )
      }
    </Loaded>
  );
}

export function CustomerSubscriptions({ customerId }: { customerId: string }) {
  const subscriptions = useQuery({
    queryKey: ['subscriptions', { customer: customerId }],
    queryFn: () =>
      api.GET('/subscriptions', { params: { query: { customer: customerId, take: 100, include: 'names' } } }),
  });
  return (
    <Table
      query={subscriptions}
      rows={subscriptions.data?.data}
      rowKey={(subscription) => subscription.id}
      empty="No subscription."
      columns={[
        ...SUBSCRIPTION_COLUMNS,
        { header: 'Started', cell: (subscription) => formatDate(subscription.start_date), wide: true },
      ]}
    />
  );
}

export function CustomerInvoices({ customerId }: { customerId: string }) {
  const invoices = useQuery({
    queryKey: ['invoices', { customer: customerId }],
    queryFn: () => api.GET('/invoices', { params: { query: { customer: customerId, take: 100 } } }),
  });
  return (
    <Table
      query={invoices}
      rows={invoices.data?.data}
      rowKey={(invoice) => invoice.id}
      empty="No invoice."
      columns={[
        { header: 'Number', cell: (invoice) => invoice.number ?? <span className="muted">draft</span> },
        { header: 'Status', cell: (invoice) => <StatusBadge status={invoice.status} /> },
        { header: 'Total', cell: (invoice) => formatMoney(invoice.total, invoice.currency) },
        { header: 'Created', cell: (invoice) => formatDate(invoice.created), wide: true },
      ]}
    />
  );
}

/**
 * The customer's payment plans, each linking its page. GET /payment-plans answers 403 feature_not_enabled
 * for an account with payment plans off that never had one: the section is then left out, not an error.
 */
export function CustomerPaymentPlans({ customerId }: { customerId: string }) {
  const plans = useQuery({
    queryKey: ['payment-plans', { customer: customerId }],
    queryFn: async () => {
      try {
        return await api.GET('/payment-plans', { params: { query: { customer: customerId, take: 100 } } });
      } catch (error) {
        if (error instanceof ApiFailure && error.status === 403) return null;
        throw error;
      }
    },
  });
  // Shown once the API said whether the account has payment plans: never a flash of the heading without them.
  if (plans.isPending || plans.data === null) return null;
  return (
    <>
      <h2>Payment plans</h2>
      <Table
        query={plans}
        rows={plans.data?.data}
        rowKey={(plan) => plan.id}
        caption="Payment plans"
        empty="No payment plan."
        columns={[
          { header: 'Plan', cell: (plan) => <code>{plan.id}</code>, link: (plan) => `/payment-plans/${plan.id}` },
          { header: 'Status', cell: (plan) => <StatusBadge status={plan.status} /> },
          { header: 'Total', cell: (plan) => formatMoney(plan.total_amount, plan.currency) },
          {
            header: 'Installments paid',
            cell: (plan) => `${plan.installments_paid} of ${plan.installments_count}`,
            wide: true,
          },
          {
            header: 'Next due',
            cell: (plan) =>
              plan.next_installment
                ? `${formatMoney(plan.next_installment.amount, plan.currency)} on ${formatDate(plan.next_installment.due_date)}`
                : '—',
            wide: true,
          },
        ]}
      />
    </>
  );
}
