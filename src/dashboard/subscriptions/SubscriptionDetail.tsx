import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import type { Session } from '../api/types';
import { StatusBadge } from '../components/badges';
import { CopyId } from '../components/CopyId';
import { Loading, Notice, OutcomeNotice, ReadFailure, type Outcome } from '../components/feedback';
import { takeFlash } from '../components/flash';
import { formatInterval, formatMoney } from '../components/format';
import { readCustomer, readSubscription, WorkflowLink } from '../components/links';
import { priceName, subscriptionTitle } from '../components/names';
import { Table } from '../components/Table';
import { EventTimeline } from '../components/timelines';
import { SubscriptionWhy } from '../billing/Why';
import { ApplyCoupon } from '../catalog/ApplyCoupon';
import { Link } from '../router';
import { SubscriptionActions } from './SubscriptionActions';
import { SubscriptionFacts } from './SubscriptionFacts';
import { SubscriptionUsage } from './SubscriptionUsage';
import { keepNames } from './facts';

const isMetered = (item: { price: { recurring: { usage_type?: string } | null } }) =>
  item.price.recurring?.usage_type === 'metered';

export function SubscriptionDetail({ id, session }: { id: string; session: Session }) {
  const [notice, setNotice] = useState<string>();
  // What the action that opened this page came to (a creation's first charge), shown once.
  const [outcome, setOutcome] = useState<Outcome | undefined>(() => takeFlash(`/subscriptions/${id}`));
  const subscription = useQuery({ queryKey: ['subscription', id], queryFn: () => readSubscription(id) });
  // Its customer's discount applies when it has none of its own (docs/api.md, "Coupons and discounts").
  const customerId = subscription.data?.customer;
  const customer = useQuery({
    queryKey: ['customer', customerId],
    queryFn: () => readCustomer(customerId!),
    enabled: customerId !== undefined,
  });

  if (subscription.isPending) return <Loading />;
  if (subscription.isError)
    return <ReadFailure error={subscription.error} kind="subscription" id={id} list="/subscriptions" />;
  const s = subscription.data;
  const workflowUrl = `${session.temporal_workflows_url}/${encodeURIComponent(`subscription:${s.id}`)}`;
  const said = (next: { notice?: string; outcome?: Outcome }) => (setNotice(next.notice), setOutcome(next.outcome));
  return (
    <>
      <p className="crumbs">
        <Link to="/subscriptions">Subscriptions</Link> /
      </p>
      <div className="title-row">
        <h1>{subscriptionTitle(s)}</h1>
        <StatusBadge status={s.status} />
      </div>
      <p className="muted">
        for <Link to={`/customers/${s.customer}`}>{s.customer_name ?? s.customer}</Link> · <CopyId id={s.id} />
      </p>
      <SubscriptionActions subscription={s} onStart={() => said({})} onDone={(done) => said({ notice: done })}>
        {s.status !== 'canceled' && s.status !== 'expired' && (
          <ApplyCoupon
            apply={(coupon) => api.PATCH('/subscriptions/{id}', { params: { path: { id: s.id } }, body: { coupon } })}
            queryKey={['subscription', id]}
            merge={keepNames}
            customerId={s.customer}
            onApplied={(applied) => said({ outcome: applied })}
          />
        )}
        <WorkflowLink url={workflowUrl} />
      </SubscriptionActions>
      <OutcomeNotice outcome={outcome} />
      <Notice text={notice} />
      <SubscriptionFacts subscription={s} customerDiscount={customer.data?.discount ?? null} />
      <SubscriptionWhy subscription={s} />
      <h2>Items</h2>
      <Table
        rows={s.items.data}
        rowKey={(item) => item.id}
        columns={[
          {
            header: 'Price',
            cell: (item) => priceName(item.price),
            note: (item) => (
              <>
                {formatInterval(item.price.recurring)} · <code>{item.price.id}</code>
              </>
            ),
          },
          {
            header: 'Unit amount',
            // A tiered price's unit_amount is 0: its tiers price the usage (docs/api.md, "Usage-based billing").
            cell: (item) =>
              item.price.billing_scheme === 'tiered'
                ? 'Tiered'
                : formatMoney(item.price.unit_amount, item.price.currency),
            wide: true,
          },
          { header: 'Quantity', cell: (item) => (isMetered(item) ? 'Metered' : item.quantity) },
          {
            header: 'Amount',
            cell: (item) =>
              isMetered(item)
                ? 'By usage, in arrears'
                : formatMoney(item.price.unit_amount * item.quantity, item.price.currency),
          },
        ]}
      />
      <SubscriptionUsage subscription={s} />
      <EventTimeline filter={{ object: s.id }} version={s.status} />
    </>
  );
}
