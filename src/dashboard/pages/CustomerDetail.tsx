import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import {
  api,
  ApiFailure,
  type BalanceTransaction,
  type Customer,
  type Invoice,
  type Page,
  type PaymentMethod,
  type PaymentPlan,
  type Subscription,
} from '../api';
import { formatDate, formatDateTime, formatMoney, statusLabel } from '../components/format';
import { Link } from '../router';
import { Empty, Failure, Loading, OutcomeNotice, ReadFailure, StatusBadge, type Outcome } from './common';
import { AddCard } from './AddCard';
import { ApplyCoupon } from './ApplyCoupon';
import { subscriptionAmount } from './Subscriptions';
import { subscriptionTitle } from '../components/names';
import { CustomerActions } from './CustomerForms';
import { CustomerWhy } from './CustomerWhy';
import { NewDraftInvoice, NewSubscription } from './CustomerBilling';
import { EventTimeline } from './Events';
import { EmailTimeline } from './EmailTimeline';

export function CustomerDetail({ id }: { id: string }) {
  const path = encodeURIComponent(id);
  // What an action of the page came to: a card added, a coupon applied.
  const [outcome, setOutcome] = useState<Outcome>();
  const customer = useQuery({ queryKey: ['customer', id], queryFn: () => api<Customer>('GET', `/customers/${path}`) });
  const methods = useQuery({
    queryKey: ['customer', id, 'payment-methods'],
    queryFn: () => api<Page<PaymentMethod>>('GET', `/customers/${path}/payment-methods?take=100`),
    enabled: customer.isSuccess,
  });
  const subscriptions = useQuery({
    queryKey: ['subscriptions', { customer: id }],
    queryFn: () => api<Page<Subscription>>('GET', `/subscriptions?customer=${path}&take=100&include=names`),
    enabled: customer.isSuccess,
  });
  const balance = useQuery({
    queryKey: ['customer', id, 'balance-transactions'],
    queryFn: () => api<Page<BalanceTransaction>>('GET', `/customers/${path}/balance-transactions?take=100`),
    enabled: customer.isSuccess,
  });
  const invoices = useQuery({
    queryKey: ['invoices', { customer: id }],
    queryFn: () => api<Page<Invoice>>('GET', `/invoices?customer=${path}&take=100`),
    enabled: customer.isSuccess,
  });

  if (customer.isPending) return <Loading />;
  if (customer.isError) return <ReadFailure error={customer.error} kind="customer" id={id} list="/customers" />;
  const c = customer.data;
  const address = c.address?.[0];
  return (
    <>
      <p className="crumbs">
        <Link to="/customers">Customers</Link> /
      </p>
      <h1>{c.name}</h1>
      <CustomerActions customer={c}>
        <NewSubscription customerId={c.id} />
        <NewDraftInvoice customerId={c.id} currency={c.currency ?? 'USD'} />
        <AddCard customerId={c.id} onAdded={setOutcome} />
        <ApplyCoupon path={`/customers/${path}`} queryKey={['customer', id]} customerId={c.id} onApplied={setOutcome} />
      </CustomerActions>
      <OutcomeNotice outcome={outcome} />
      <dl className="card facts">
        <dt>Email</dt>
        <dd>{c.email ?? '—'}</dd>
        <dt>Phone</dt>
        <dd>{c.phone ?? '—'}</dd>
        <dt>Address</dt>
        <dd>
          {address
            ? [address.line1, address.postal_code, address.city, address.country].filter(Boolean).join(', ')
            : '—'}
        </dd>
        <dt>Credit balance</dt>
        <dd>{c.balance < 0 ? formatMoney(-c.balance, c.balance_currency ?? 'USD') : '—'}</dd>
        <dt>Created</dt>
        <dd>{formatDate(c.created)}</dd>
        {c.test_clock && (
          <>
            <dt>Test clock</dt>
            <dd>
              <Link to="/settings">
                <code>{c.test_clock}</code>
              </Link>
            </dd>
          </>
        )}
        <dt>Id</dt>
        <dd>
          <code>{c.id}</code>
        </dd>
      </dl>

      <CustomerWhy id={id} />

      <h2>Balance transactions</h2>
      {balance.isPending ? (
        <Loading />
      ) : balance.isError ? (
        <Failure error={balance.error} />
      ) : balance.data.data.length === 0 ? (
        <Empty>
          <p>No credit yet: credit notes to the balance and invoices below zero add to it.</p>
        </Empty>
      ) : (
        <BalanceHistory entries={balance.data.data} />
      )}

      <h2>Payment methods</h2>
      {methods.isPending ? (
        <Loading />
      ) : methods.isError ? (
        <Failure error={methods.error} />
      ) : methods.data.data.length === 0 ? (
        <Empty>
          <p>No payment method.</p>
        </Empty>
      ) : (
        <ul className="card list">
          {methods.data.data.map((method) => (
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
      )}

      <h2>Subscriptions</h2>
      {subscriptions.isPending ? (
        <Loading />
      ) : subscriptions.isError ? (
        <Failure error={subscriptions.error} />
      ) : subscriptions.data.data.length === 0 ? (
        <Empty>
          <p>No subscription.</p>
        </Empty>
      ) : (
        <div className="card table-card">
          <table>
            <thead>
              <tr>
                <th scope="col">Subscription</th>
                <th scope="col">Status</th>
                <th scope="col">Amount</th>
                <th scope="col" className="hide-narrow">
                  Started
                </th>
              </tr>
            </thead>
            <tbody>
              {subscriptions.data.data.map((subscription) => (
                <tr key={subscription.id}>
                  <td>
                    <Link to={`/subscriptions/${subscription.id}`}>{subscriptionTitle(subscription)}</Link>
                    <div className="muted small">
                      <code>{subscription.id}</code>
                    </div>
                  </td>
                  <td>
                    <StatusBadge status={subscription.status} />
                  </td>
                  <td>{subscriptionAmount(subscription)}</td>
                  <td className="hide-narrow">{formatDate(subscription.start_date)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <CustomerPaymentPlans customerId={c.id} />

      <h2>Invoices</h2>
      {invoices.isPending ? (
        <Loading />
      ) : invoices.isError ? (
        <Failure error={invoices.error} />
      ) : invoices.data.data.length === 0 ? (
        <Empty>
          <p>No invoice.</p>
        </Empty>
      ) : (
        <div className="card table-card">
          <table>
            <thead>
              <tr>
                <th scope="col">Number</th>
                <th scope="col">Status</th>
                <th scope="col">Total</th>
                <th scope="col" className="hide-narrow">
                  Created
                </th>
              </tr>
            </thead>
            <tbody>
              {invoices.data.data.map((invoice) => (
                <tr key={invoice.id}>
                  <td>{invoice.number ?? <span className="muted">draft</span>}</td>
                  <td>
                    <StatusBadge status={invoice.status} />
                  </td>
                  <td>{formatMoney(invoice.total, invoice.currency)}</td>
                  <td className="hide-narrow">{formatDate(invoice.created)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <EmailTimeline filter={{ customer: c.id }} version={c} />
      <EventTimeline filter={{ customer: c.id }} version={c} />
    </>
  );
}

/**
 * The customer's payment plans, each linking its page. GET /payment-plans answers 403 feature_not_enabled
 * for an account with payment plans off that never had one: the section is then left out, not an error.
 */
function CustomerPaymentPlans({ customerId }: { customerId: string }) {
  const plans = useQuery({
    queryKey: ['payment-plans', { customer: customerId }],
    queryFn: async () => {
      try {
        return await api<Page<PaymentPlan>>(
          'GET',
          `/payment-plans?customer=${encodeURIComponent(customerId)}&take=100`,
        );
      } catch (error) {
        if (error instanceof ApiFailure && error.status === 403) return null;
        throw error;
      }
    },
  });
  // Shown once the API said whether the account has payment plans: never a flash of the heading without them.
  if (plans.isPending) return null;
  if (plans.data === null) return null;
  return (
    <>
      <h2>Payment plans</h2>
      {plans.isError ? (
        <Failure error={plans.error} />
      ) : plans.data.data.length === 0 ? (
        <Empty>
          <p>No payment plan.</p>
        </Empty>
      ) : (
        <div className="card table-card">
          <table>
            <caption className="visually-hidden">Payment plans</caption>
            <thead>
              <tr>
                <th scope="col">Plan</th>
                <th scope="col">Status</th>
                <th scope="col">Total</th>
                <th scope="col" className="hide-narrow">
                  Installments paid
                </th>
                <th scope="col" className="hide-narrow">
                  Next due
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
                  <td>{formatMoney(plan.total_amount, plan.currency)}</td>
                  <td className="hide-narrow">
                    {plan.installments_paid} of {plan.installments_count}
                  </td>
                  <td className="hide-narrow">
                    {plan.next_installment
                      ? `${formatMoney(plan.next_installment.amount, plan.currency)} on ${formatDate(plan.next_installment.due_date)}`
                      : '—'}
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

/**
 * The customer's balance transactions, newest first (docs/decisions.md §22), as credit: the API's negative
 * amount (Stripe's sign) is credit added, shown "+"; the credit left after each.
 */
function BalanceHistory({ entries }: { entries: BalanceTransaction[] }) {
  return (
    <div className="card table-card">
      <table>
        <caption className="visually-hidden">Balance transactions</caption>
        <thead>
          <tr>
            <th scope="col">Entry</th>
            <th scope="col">Credit change</th>
            <th scope="col">Credit after</th>
            <th scope="col" className="hide-narrow">
              When
            </th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => (
            <tr key={entry.id}>
              <td>
                {statusLabel(entry.type)}
                <div className="muted small">
                  {entry.invoice ? (
                    <Link to={`/invoices/${entry.invoice}`}>{entry.description ?? entry.invoice}</Link>
                  ) : (
                    (entry.description ?? entry.credit_note ?? '')
                  )}
                </div>
              </td>
              <td>
                {entry.amount < 0 ? '+' : ''}
                {formatMoney(-entry.amount, entry.currency)}
              </td>
              <td>{formatMoney(-entry.ending_balance, entry.currency)}</td>
              <td className="hide-narrow">{formatDateTime(entry.created)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
