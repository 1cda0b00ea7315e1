import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, type Page, type Subscription } from '../api';
import { formatDate, formatInterval, formatMoney, statusLabel } from '../components/format';
import { Link, listAddress, navigate, useLocation } from '../router';
import { Empty, Failure, Loading, PagesOf, StatusBadge, StatusTabs } from './common';
import { CustomerPicker } from '../components/CustomerPicker';
import { subscriptionTitle } from '../components/names';

const TAKE = 20;
const STATUSES = ['active', 'trialing', 'past_due', 'paused', 'scheduled', 'canceled', 'expired'];

/** What a subscription bills each period, when its items share one interval (the usual case). */
export function subscriptionAmount(subscription: Subscription): string {
  const items = subscription.items.data;
  const total = items.reduce((sum, item) => sum + item.price.unit_amount * item.quantity, 0);
  const intervals = new Set(items.map((item) => formatInterval(item.price.recurring)));
  const money = formatMoney(total, subscription.currency);
  return intervals.size === 1 ? `${money} ${[...intervals][0]}` : money;
}

/** When the next invoice is due: the end of the current period while billing runs. */
export function nextInvoiceDate(subscription: Subscription): number | null {
  if (!['active', 'trialing', 'past_due', 'scheduled'].includes(subscription.status)) return null;
  if (subscription.cancel_at_period_end) return null;
  return subscription.current_period_end ?? subscription.start_date;
}

export function Subscriptions() {
  const { search } = useLocation();
  const status = search.get('status') ?? '';
  const customer = search.get('customer') ?? '';
  const page = Math.max(1, Number(search.get('page')) || 1);
  const go = (next: { status?: string; customer?: string; page?: number }) =>
    navigate(
      listAddress('/subscriptions', {
        status: next.status ?? status,
        customer: next.customer ?? customer,
        page: next.page ?? 1,
      }),
      { replace: true },
    );
  const subscriptions = useQuery({
    queryKey: ['subscriptions', { status, customer, page }],
    queryFn: () => {
      const params = new URLSearchParams({ page: String(page), take: String(TAKE), include: 'names' });
      if (status) params.set('status', status);
      if (customer) params.set('customer', customer);
      return api<Page<Subscription>>('GET', `/subscriptions?${params}`);
    },
    placeholderData: keepPreviousData,
  });

  return (
    <>
      <h1>Subscriptions</h1>
      <StatusTabs
        statuses={STATUSES}
        current={status}
        to={(value) => listAddress('/subscriptions', { status: value, customer })}
      />
      <div className="filters">
        <CustomerPicker label="Customer" value={customer} onChange={(id) => go({ customer: id })} />
      </div>
      {subscriptions.isPending ? (
        <Loading />
      ) : subscriptions.isError ? (
        <Failure error={subscriptions.error} />
      ) : subscriptions.data.data.length === 0 ? (
        <Empty>
          <p>{status ? `No ${statusLabel(status)} subscription.` : 'No subscriptions yet.'}</p>
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
                  Next invoice
                </th>
                <th scope="col" className="hide-narrow">
                  Customer
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
                  <td className="hide-narrow">{formatDate(nextInvoiceDate(subscription))}</td>
                  <td className="hide-narrow">
                    <Link to={`/customers/${subscription.customer}`}>
                      {subscription.customer_name ?? <code>{subscription.customer}</code>}
                    </Link>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <PagesOf list={subscriptions.data} page={page} onPage={(next) => go({ page: next })} />
    </>
  );
}
