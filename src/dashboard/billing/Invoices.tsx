import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import type { Invoice } from '../api/types';
import { formatDate, formatMoney, startOfDay } from '../components/format';
import { ListFilters, listAddress, listFilters, navigate, oneOf, useLocation } from '../router';
import { StatusBadge } from '../components/badges';
import { StatusTabs } from '../components/lists';
import { Field, Form } from '../components/form';
import { Table } from '../components/Table';
import { CustomerPicker } from '../components/CustomerPicker';

const TAKE = 20;
const STATUSES = ['draft', 'open', 'paid', 'void'] as const;

/** The list's filters, kept in the address; from and to are `YYYY-MM-DD` days in the account's time zone. */
const FILTERS = ['status', 'customer', 'from', 'to'] as const;
type Filters = ListFilters<(typeof FILTERS)[number]>;
const addressOf = (filters: Filters) => listAddress('/invoices', filters);

/** Unix seconds of midnight in the account's time zone starting `day` (`YYYY-MM-DD`), or of the next day's (`end`). */
function dayBound(day: string, end: boolean): number {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  return startOfDay(year, month, date + (end ? 1 : 0));
}

/** The API's query for the filters: created on or after the first day and before the day after the last. */
function queryOf(filters: Filters) {
  return {
    page: filters.page,
    take: TAKE,
    status: oneOf(filters.status, STATUSES),
    customer: filters.customer || undefined,
    created_gte: filters.from ? dayBound(filters.from, false) : undefined,
    created_lt: filters.to ? dayBound(filters.to, true) : undefined,
  };
}

/** How people name an invoice: its number once finalized, its id while a draft. */
export function invoiceName(invoice: Pick<Invoice, 'id' | 'number'>): string {
  return invoice.number ?? invoice.id;
}

export function Invoices() {
  const { search } = useLocation();
  const filters = listFilters(search, FILTERS);
  const go = (next: Partial<Filters>) => navigate(addressOf({ ...filters, page: 1, ...next }), { replace: true });
  const invoices = useQuery({
    queryKey: ['invoices', filters],
    queryFn: () => api.GET('/invoices', { params: { query: queryOf(filters) } }),
    placeholderData: keepPreviousData,
  });
  const filtered = Boolean(filters.status || filters.customer || filters.from || filters.to);

  return (
    <>
      <h1>Invoices</h1>
      <StatusTabs
        statuses={STATUSES}
        current={filters.status}
        to={(value) => addressOf({ ...filters, status: value, page: 1 })}
      />
      <InvoiceFilters filters={filters} onApply={go} />
      <Table
        query={invoices}
        rows={invoices.data?.data}
        rowKey={(invoice) => invoice.id}
        empty={filtered ? 'No invoice matches these filters.' : 'No invoices yet.'}
        columns={[
          {
            header: 'Invoice',
            cell: (invoice) => <code>{invoiceName(invoice)}</code>,
            link: (invoice) => `/invoices/${invoice.id}`,
          },
          { header: 'Status', cell: (invoice) => <StatusBadge status={invoice.status} /> },
          { header: 'Total', cell: (invoice) => formatMoney(invoice.total, invoice.currency) },
          { header: 'Due', cell: (invoice) => formatMoney(invoice.amount_remaining, invoice.currency), wide: true },
          {
            header: 'Customer',
            cell: (invoice) => invoice.customer_name ?? invoice.customer,
            link: (invoice) => `/customers/${invoice.customer}`,
            wide: true,
          },
          { header: 'Created', cell: (invoice) => formatDate(invoice.created), wide: true },
        ]}
        pages={{
          list: invoices.data,
          page: filters.page,
          onPage: (page) => navigate(addressOf({ ...filters, page }), { replace: true }),
        }}
      />
    </>
  );
}

/** Customer (picked by name or email) and creation dates; applied together, so the list is not fetched at every keystroke. */
function InvoiceFilters({ filters, onApply }: { filters: Filters; onApply: (next: Partial<Filters>) => void }) {
  const [customer, setCustomer] = useState(filters.customer);
  const [from, setFrom] = useState(filters.from);
  const [to, setTo] = useState(filters.to);
  return (
    <Form
      layout="inline"
      label="Filters"
      submit="Apply"
      submitClass="secondary"
      onSubmit={() => onApply({ customer, from, to })}
    >
      <CustomerPicker label="Customer" value={customer} onChange={setCustomer} />
      <Field label="Created from" type="date" value={from} onValue={setFrom} />
      <Field label="to" type="date" value={to} onValue={setTo} />
    </Form>
  );
}
