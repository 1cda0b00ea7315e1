import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Customer, type Session, type Subscription } from '../api';
import { formatDate, formatDateTime, formatInterval, formatMoney } from '../components/format';
import { Link } from '../router';
import { SubscriptionWhy } from './Why';
import { Confirm, Failure, Loading, Notice, OutcomeNotice, ReadFailure, StatusBadge, WorkflowLink } from './common';
import { ApplyCoupon } from './ApplyCoupon';
import { takeFlash } from '../components/flash';
import { nextInvoiceDate, subscriptionAmount } from './Subscriptions';
import { EventTimeline } from './Events';
import { CopyId } from '../components/CopyId';
import { couponTerms } from './Catalog';
import { priceName, subscriptionTitle } from '../components/names';

type Action = 'pause' | 'resume' | 'cancel_at_period_end' | 'keep' | 'cancel';

const ACTIONS: Record<Action, { label: string; title: string; question: string; done: string }> = {
  pause: {
    label: 'Pause',
    title: 'Pause this subscription?',
    question: 'No invoices are made while it is paused; resuming moves its billing dates on by the time paused.',
    done: 'Paused.',
  },
  resume: {
    label: 'Resume',
    title: 'Resume this subscription?',
    question: 'Billing continues from where it paused.',
    done: 'Resumed.',
  },
  cancel_at_period_end: {
    label: 'Cancel at period end',
    title: 'Cancel this subscription at the end of its period?',
    question:
      'It runs to the end of the period already paid, then ends; nothing more is billed. Until then it can be kept.',
    done: 'It cancels at the end of the period.',
  },
  keep: {
    label: 'Keep subscription',
    title: 'Keep this subscription?',
    question: 'The cancellation at the end of the period is withdrawn: billing goes on.',
    done: 'It goes on.',
  },
  cancel: {
    label: 'Cancel subscription',
    title: 'Cancel this subscription now?',
    question: 'It ends now and bills nothing more. This cannot be undone.',
    done: 'Canceled.',
  },
};

function actionsFor(subscription: Subscription): Action[] {
  const { status } = subscription;
  if (status === 'canceled' || status === 'expired') return [];
  const atPeriodEnd: Action[] = subscription.cancel_at_period_end ? ['keep'] : ['cancel_at_period_end'];
  if (status === 'paused') return ['resume', 'cancel'];
  // The API pauses an active subscription only (a trialing or scheduled one answers 409).
  if (status === 'active' || status === 'past_due') return ['pause', ...atPeriodEnd, 'cancel'];
  return [...atPeriodEnd, 'cancel'];
}

/** A change answers without names (include=names is a read's): the names on screen stay, the rest is the answer's. */
function keepNames(shown: Subscription | undefined, updated: Subscription): Subscription {
  const productNames = new Map(shown?.items.data.map((item) => [item.price.id, item.price.product_name]));
  return {
    ...updated,
    customer_name: shown?.customer_name,
    items: {
      ...updated.items,
      data: updated.items.data.map((item) => ({
        ...item,
        price: { ...item.price, product_name: productNames.get(item.price.id) },
      })),
    },
  };
}

export function SubscriptionDetail({ id, session }: { id: string; session: Session }) {
  const queryClient = useQueryClient();
  const path = encodeURIComponent(id);
  const [asking, setAsking] = useState<Action>();
  const [notice, setNotice] = useState<string>();
  // What the action that opened this page came to (a creation's first charge), shown once.
  const [outcome, setOutcome] = useState(() => takeFlash(`/subscriptions/${id}`));
  const subscription = useQuery({
    queryKey: ['subscription', id],
    queryFn: () => api<Subscription>('GET', `/subscriptions/${path}?include=names`),
  });
  // Its customer's discount applies when it has none of its own (docs/api.md, "Coupons and discounts").
  const customerId = subscription.data?.customer;
  const customer = useQuery({
    queryKey: ['customer', customerId],
    queryFn: () => api<Customer>('GET', `/customers/${encodeURIComponent(customerId!)}`),
    enabled: customerId !== undefined,
  });
  const act = useMutation({
    mutationFn: (action: Action) => {
      switch (action) {
        case 'cancel':
          return api<Subscription>('DELETE', `/subscriptions/${path}`);
        case 'cancel_at_period_end':
        case 'keep':
          return api<Subscription>('PATCH', `/subscriptions/${path}`, {
            cancel_at_period_end: action === 'cancel_at_period_end',
          });
        default:
          return api<Subscription>('POST', `/subscriptions/${path}/${action}`, {});
      }
    },
    onSuccess: (updated, action) => {
      queryClient.setQueryData(['subscription', id], (shown: Subscription | undefined) => keepNames(shown, updated));
      void queryClient.invalidateQueries({ queryKey: ['subscriptions'] });
      void queryClient.invalidateQueries({ queryKey: ['customer', updated.customer, 'billing-report'] });
      setNotice(ACTIONS[action].done);
    },
    onSettled: () => setAsking(undefined),
  });

  if (subscription.isPending) return <Loading />;
  if (subscription.isError)
    return <ReadFailure error={subscription.error} kind="subscription" id={id} list="/subscriptions" />;
  const s = subscription.data;
  const workflowUrl = `${session.temporal_workflows_url}/${encodeURIComponent(`subscription:${s.id}`)}`;
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
      <div className="actions">
        {actionsFor(s).map((action) => (
          <button
            key={action}
            type="button"
            className={action === 'cancel' ? 'danger' : 'secondary'}
            onClick={() => (act.reset(), setNotice(undefined), setOutcome(undefined), setAsking(action))}
          >
            {ACTIONS[action].label}
          </button>
        ))}
        {s.status !== 'canceled' && s.status !== 'expired' && (
          <ApplyCoupon
            path={`/subscriptions/${path}`}
            queryKey={['subscription', id]}
            customerId={s.customer}
            onApplied={(applied) => (setNotice(undefined), setOutcome(applied))}
          />
        )}
        <WorkflowLink url={workflowUrl} />
      </div>
      <OutcomeNotice outcome={outcome} />
      <Notice text={notice} />
      {act.isError && <Failure error={act.error} />}
      {asking && (
        <Confirm
          title={ACTIONS[asking].title}
          message={ACTIONS[asking].question}
          confirm={ACTIONS[asking].label}
          danger={asking === 'cancel'}
          busy={act.isPending}
          onConfirm={() => act.mutate(asking)}
          onClose={() => setAsking(undefined)}
        />
      )}
      <dl className="card facts">
        <dt>Customer</dt>
        <dd>
          <Link to={`/customers/${s.customer}`}>{s.customer_name ?? s.customer}</Link>
        </dd>
        <dt>Amount</dt>
        <dd>{subscriptionAmount(s)}</dd>
        <DiscountFacts subscription={s} customerDiscount={customer.data?.discount ?? null} />
        <dt>Current period</dt>
        <dd>
          {s.current_period_start ? `${formatDate(s.current_period_start)} – ${formatDate(s.current_period_end)}` : '—'}
        </dd>
        <dt>Next invoice</dt>
        <dd>{formatDate(nextInvoiceDate(s))}</dd>
        <dt>Started</dt>
        <dd>{formatDate(s.start_date)}</dd>
        {s.trial_end && (
          <>
            <dt>Trial ends</dt>
            <dd>{formatDate(s.trial_end)}</dd>
          </>
        )}
        {s.paused_at && (
          <>
            <dt>Paused since</dt>
            <dd>{formatDateTime(s.paused_at)}</dd>
          </>
        )}
        {(s.cancel_at || s.cancel_at_period_end) && (
          <>
            <dt>Cancels</dt>
            <dd>{s.cancel_at ? formatDate(s.cancel_at) : 'at the end of the period'}</dd>
          </>
        )}
        {s.canceled_at && (
          <>
            <dt>Canceled</dt>
            <dd>{formatDateTime(s.canceled_at)}</dd>
          </>
        )}
        <dt>Created</dt>
        <dd>{formatDateTime(s.created)}</dd>
      </dl>
      <SubscriptionWhy subscription={s} />
      <h2>Items</h2>
      <div className="card table-card">
        <table>
          <thead>
            <tr>
              <th scope="col">Price</th>
              <th scope="col" className="hide-narrow">
                Unit amount
              </th>
              <th scope="col">Quantity</th>
              <th scope="col">Amount</th>
            </tr>
          </thead>
          <tbody>
            {s.items.data.map((item) => (
              <tr key={item.id}>
                <td>
                  {priceName(item.price)}
                  <div className="muted small">
                    {formatInterval(item.price.recurring)} · <code>{item.price.id}</code>
                  </div>
                </td>
                <td className="hide-narrow">{formatMoney(item.price.unit_amount, item.price.currency)}</td>
                <td>{item.quantity}</td>
                <td>{formatMoney(item.price.unit_amount * item.quantity, item.price.currency)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <EventTimeline filter={{ object: s.id }} version={s.status} />
    </>
  );
}

type Discount = NonNullable<Subscription['discount']>;

/**
 * The discount its invoices take and what it takes off each period's items: the subscription's own, else its
 * customer's (docs/api.md, "Coupons and discounts"), rounded as an invoice rounds it (percent half up, an
 * amount up to the items' sum). Proration lines of a period are discounted too; this is the usual period.
 */
function DiscountFacts({
  subscription,
  customerDiscount,
}: {
  subscription: Subscription;
  customerDiscount: Discount | null;
}) {
  const discount = subscription.discount ?? customerDiscount;
  if (!discount) return null;
  const { coupon } = discount;
  const items = subscription.items.data.reduce((sum, item) => sum + item.price.unit_amount * item.quantity, 0);
  const off =
    coupon.percent_off !== null
      ? Math.floor((items * Math.round(coupon.percent_off * 100) * 2 + 10_000) / 20_000)
      : coupon.currency === subscription.currency
        ? Math.min(coupon.amount_off ?? 0, items)
        : 0;
  const lasts =
    coupon.duration === 'forever'
      ? 'every invoice'
      : coupon.duration === 'once'
        ? 'the next invoice only'
        : `invoices of periods starting before ${formatDate(discount.end)}`;
  return (
    <>
      <dt>Discount</dt>
      <dd>
        {coupon.name ?? coupon.id}: {couponTerms(coupon)}
        {discount.subscription === null && ' (the customer’s)'}
        <div className="muted small">
          Takes {formatMoney(off, subscription.currency)} off {formatMoney(items, subscription.currency)}, on {lasts}
        </div>
      </dd>
    </>
  );
}
