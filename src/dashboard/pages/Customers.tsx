import { useEffect, useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, type Customer } from '../api';
import { formatDate } from '../components/format';
import { Link, navigate, useLocation } from '../router';
import { Empty, Failure, Loading, Pager } from './common';
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
    queryFn: () => {
      const params = new URLSearchParams({ page: String(page), take: String(TAKE) });
      if (query) params.set('search', query);
      return api<Customer[]>('GET', `/customers?${params}`);
    },
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
      {customers.isPending ? (
        <Loading />
      ) : customers.isError ? (
        <Failure error={customers.error} />
      ) : customers.data.length === 0 ? (
        <Empty>
          {query ? (
            <p>No customer matches “{query}”.</p>
          ) : page > 1 ? (
            <p>No more customers.</p>
          ) : (
            <>
              <p>No customers yet.</p>
              <p className="muted">Customers created through the API (POST /customers) appear here.</p>
            </>
          )}
        </Empty>
      ) : (
        <div className="card table-card">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col" className="hide-narrow">
                  Created
                </th>
              </tr>
            </thead>
            <tbody>
              {customers.data.map((customer) => (
                <tr key={customer.id}>
                  <td>
                    <Link to={`/customers/${customer.id}`}>{customer.name}</Link>
                  </td>
                  <td className="truncate">{customer.email ?? '—'}</td>
                  <td className="hide-narrow">{formatDate(customer.created)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager page={page} hasNext={(customers.data?.length ?? 0) === TAKE} onPage={(next) => go({ page: next })} />
    </>
  );
}
