import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import { CustomerPicker } from '../components/CustomerPicker';
import { formatDate, statusLabel } from '../components/format';
import { PagesOf, StatusTabs } from '../components/lists';
import { Table } from '../components/Table';
import { listAddress, listFilters, navigate, oneOf, useLocation, type ListFilters } from '../router';
import { SUBSCRIPTION_COLUMNS } from './columns';
import { nextInvoiceDate } from './facts';

const TAKE = 20;
const STATUSES = ['active', 'trialing', 'past_due', 'paused', 'scheduled', 'canceled', 'expired'] as const;
const FILTERS = ['status', 'customer'] as const;
const addressOf = (filters: ListFilters<(typeof FILTERS)[number]>) => listAddress('/subscriptions', filters);

export function Subscriptions() {
  const { search } = useLocation();
  const filters = listFilters(search, FILTERS);
  const { status, customer, page } = filters;
  const subscriptions = useQuery({
    queryKey: ['subscriptions', { status, customer, page }],
    queryFn: () =>
      api.GET('/subscriptions', {
        params: {
          query: {
            page,
            take: TAKE,
            include: 'names',
            status: oneOf(status, STATUSES),
            customer: customer || undefined,
          },
        },
      }),
    placeholderData: keepPreviousData,
  });

  return (
    <>
      <h1>Subscriptions</h1>
      <StatusTabs
        statuses={STATUSES}
        current={status}
        to={(value) => addressOf({ status: value, customer, page: 1 })}
      />
      <div className="filters">
        <CustomerPicker
          label="Customer"
          value={customer}
          onChange={(id) => navigate(addressOf({ ...filters, customer: id, page: 1 }), { replace: true })}
        />
      </div>
      <Table
        query={subscriptions}
        rows={subscriptions.data?.data}
        rowKey={(subscription) => subscription.id}
        empty={status ? `No ${statusLabel(status)} subscription.` : 'No subscriptions yet.'}
        columns={[
          ...SUBSCRIPTION_COLUMNS,
          { header: 'Next invoice', cell: (subscription) => formatDate(nextInvoiceDate(subscription)), wide: true },
          {
            header: 'Customer',
            cell: (subscription) => subscription.customer_name ?? <code>{subscription.customer}</code>,
            link: (subscription) => `/customers/${subscription.customer}`,
            wide: true,
          },
        ]}
      />
      <PagesOf
        list={subscriptions.data}
        page={page}
        onPage={(next) => navigate(addressOf({ ...filters, page: next }), { replace: true })}
      />
    </>
  );
}
