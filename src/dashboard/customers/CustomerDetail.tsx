import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import type { Customer } from '../api/types';
import { formatDate, formatMoney } from '../components/format';
import { Loading, OutcomeNotice, ReadFailure, type Outcome } from '../components/feedback';
import { readCustomer } from '../components/links';
import { EmailTimeline, EventTimeline } from '../components/timelines';
import { Link } from '../router';
import { AddCard } from './AddCard';
import { ApplyCoupon } from '../catalog/ApplyCoupon';
import { CustomerActions } from './CustomerForms';
import { CustomerWhy } from './CustomerWhy';
import { NewDraftInvoice, NewSubscription } from './CustomerBilling';
import {
  BalanceHistory,
  CustomerInvoices,
  CustomerPaymentPlans,
  CustomerSubscriptions,
  PaymentMethods,
} from './CustomerLists';

export function CustomerDetail({ id }: { id: string }) {
  // What an action of the page came to: a card added, a coupon applied.
  const [outcome, setOutcome] = useState<Outcome>();
  const customer = useQuery({ queryKey: ['customer', id], queryFn: () => readCustomer(id) });

  if (customer.isPending) return <Loading />;
  if (customer.isError) return <ReadFailure error={customer.error} kind="customer" id={id} list="/customers" />;
  const c = customer.data;
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
        <ApplyCoupon
          apply={(coupon) =>
            api.PATCH('/customers/{externalKey}', { params: { path: { externalKey: c.id } }, body: { coupon } })
          }
          queryKey={['customer', id]}
          customerId={c.id}
          onApplied={setOutcome}
        />
      </CustomerActions>
      <OutcomeNotice outcome={outcome} />
      <CustomerFacts customer={c} />
      <CustomerWhy id={id} />
      <h2>Balance transactions</h2>
      <BalanceHistory customerId={id} />
      <h2>Payment methods</h2>
      <PaymentMethods customerId={id} />
      <h2>Subscriptions</h2>
      <CustomerSubscriptions customerId={id} />
      <CustomerPaymentPlans customerId={c.id} />
      <h2>Invoices</h2>
      <CustomerInvoices customerId={id} />
      <EmailTimeline filter={{ customer: c.id }} version={c} />
      <EventTimeline filter={{ customer: c.id }} version={c} />
    </>
  );
}

function CustomerFacts({ customer: c }: { customer: Customer }) {
  const address = c.address?.[0];
  return (
    <dl className="card facts">
      <dt>Email</dt>
      <dd>{c.email ?? '—'}</dd>
      <dt>Phone</dt>
      <dd>{c.phone ?? '—'}</dd>
      <dt>Address</dt>
      <dd>
        {address ? [address.line1, address.postal_code, address.city, address.country].filter(Boolean).join(', ') : '—'}
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
  );
}
