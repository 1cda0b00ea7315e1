import { useEffect, useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import { formatDate } from '../components/format';
import { Table } from '../components/Table';
import { navigate, useLocation } from '../router';
import { NewCustomer } from './CustomerForms';

const TAKE = 20;

export function Customers() {
  const { search } = useLocation();
  const query = search.get('search') ?? '';
  const page = Math.max(1, Number(search.get('page')) || 1);
  const [typed, setTyped] = useState(query);

  const go = (next: { search?: string; page?: number }) => {
    const params = new URLSearchParams();
    const text = next.search ?? query;
    if (text) params.set('search', text);
    if ((next.page ?? 1) > 1) params.set('page', String(next.page));
    const suffix = params.toString();
    navigate(`/customers${suffix ? `?${suffix}` : ''}`, { replace: true });
  };

  // Searching as one types, a moment after the last key.
  useEffect(() => {
    if (typed.trim() === query) return;
    const timer = setTimeout(() => go({ search: typed.trim(), page: 1 }), 300);
    return () => clearTimeout(timer);
  }, [typed]);

  const customers = useQuery({
    queryKey: ['customers', query, page],
    queryFn: () => api.GET('/customers', { params: { query: { page, take: TAKE, search: query || undefined } } }),
    placeholderData: keepPreviousData,
  });

  return (
    <>
      <div className="title-row">
        <h1>Customers</h1>
        <NewCustomer />
      </div>
      <form
        className="toolbar"
        role="search"
        onSubmit={(event) => (event.preventDefault(), go({ search: typed.trim() }))}
      >
        <label>
          <span className="visually-hidden">Search customers</span>
          <input
            type="search"
            placeholder="Search by name or email"
            value={typed}
            onChange={(event) => setTyped(event.target.value)}
          />
        </label>
      </form>
      <Table
        query={customers}
        rows={customers.data}
        rowKey={(customer) => customer.id}
        empty={
          query ? (
            <p>No customer matches “{query}”.</p>
          ) : page > 1 ? (
            <p>No more customers.</p>
          ) : (
            <>
              <p>No customers yet.</p>
              <p className="muted">Customers created through the API (POST /customers) appear here.</p>
            </>
          )
        }
        columns={[
          { header: 'Name', cell: (customer) => customer.name, link: (customer) => `/customers/${customer.id}` },
          { header: 'Email', cell: (customer) => customer.email ?? '—', className: 'truncate' },
          { header: 'Created', cell: (customer) => formatDate(customer.created), wide: true },
        ]}
        pages={{ page, hasNext: (customers.data?.length ?? 0) === TAKE, onPage: (next) => go({ page: next }) }}
      />
    </>
  );
}
