import { useState, type FormEvent } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import type { Balance } from '../api/types';
import { formatDateTime, formatMoney } from '../components/format';
import { Link, ListFilters, listAddress, listFilters, navigate, oneOf, useLocation } from '../router';
import { StatusBadge } from '../components/badges';
import { Empty, Failure, Loading } from '../components/feedback';
import { StatusTabs } from '../components/lists';
import { Table } from '../components/Table';
import { CopyId } from '../components/CopyId';
import { CustomerPicker } from '../components/CustomerPicker';
import { invoiceName } from './Invoices';

const TAKE = 20;
const STATUSES = ['succeeded', 'failed', 'pending'] as const;
const TYPES = ['payment', 'refund', 'adjustment'] as const;

/** GET /transactions' filters (docs/api.md), kept in the address like the invoices' list. */
const FILTERS = ['status', 'type', 'customer', 'invoice'] as const;
type Filters = ListFilters<(typeof FILTERS)[number]>;
const addressOf = (filters: Filters) => listAddress('/payments', filters);

/** GET /transactions' query for the filters: a status or type the API does not know is left out (its default). */
function queryOf(filters: Filters) {
  return {
    page: filters.page,
    take: TAKE,
    include: 'names' as const,
    status: oneOf(filters.status, STATUSES),
    type: oneOf(filters.type, TYPES),
    customer: filters.customer || undefined,
    invoice: filters.invoice || undefined,
  };
}

export function Payments() {
  const { search } = useLocation();
  const filters = listFilters(search, FILTERS);
  const balance = useQuery({ queryKey: ['balance'], queryFn: () => api.GET('/balance') });
  const transactions = useQuery({
    queryKey: ['transactions', filters],
    queryFn: () => api.GET('/transactions', { params: { query: queryOf(filters) } }),
    placeholderData: keepPreviousData,
  });
  const filtered = Boolean(filters.status || filters.type || filters.customer || filters.invoice);

  return (
    <>
      <h1>Payments</h1>
      <h2>Balance</h2>
      {balance.isPending ? (
        <Loading />
      ) : balance.isError ? (
        <Failure error={balance.error} />
      ) : (
        <BalanceFigures balance={balance.data} />
      )}

      <h2>Transactions</h2>
      <StatusTabs
        statuses={STATUSES}
        current={filters.status}
        to={(value) => addressOf({ ...filters, status: value, page: 1 })}
      />
      <TransactionFilters
        key={search.toString()}
        filters={filters}
        onApply={(next) => navigate(addressOf({ ...filters, ...next, page: 1 }), { replace: true })}
      />
      <Table
        query={transactions}
        rows={transactions.data?.data}
        rowKey={(transaction) => transaction.id}
        empty={filtered ? 'No transaction matches these filters.' : 'No payments yet.'}
        columns={[
          {
            header: 'Transaction',
            cell: (transaction) => (
              <>
                <CopyId id={transaction.id} />
                {transaction.invoice && (
                  <div className="small">
                    <Link to={`/invoices/${transaction.invoice}`} title={transaction.invoice}>
                      Invoice {transaction.invoice_number ?? 'draft'}
                    </Link>
                  </div>
                )}
              </>
            ),
          },
          { header: 'Type', cell: (transaction) => transaction.type, className: 'capitalize', wide: true },
          {
            header: 'Status',
            cell: (transaction) => <StatusBadge status={transaction.status} />,
            note: (transaction) => transaction.failure_message,
          },
          {
            header: 'Amount',
            cell: (transaction) => formatMoney(transaction.amount, transaction.currency),
            money: true,
          },
          {
            header: 'Customer',
            cell: (transaction) =>
              transaction.customer ? (transaction.customer_name ?? <code>{transaction.customer}</code>) : '—',
            link: (transaction) => (transaction.customer ? `/customers/${transaction.customer}` : undefined),
            wide: true,
          },
          { header: 'Created', cell: (transaction) => formatDateTime(transaction.created), wide: true },
        ]}
        pages={{
          list: transactions.data,
          page: filters.page,
          onPage: (page) => navigate(addressOf({ ...filters, page }), { replace: true }),
        }}
      />
    </>
  );
}

/** Available and pending per currency; the API answers an amount past 2^53 cents as a string of digits. */
function BalanceFigures({ balance }: { balance: Balance }) {
  const currencies = [...new Set([...balance.available, ...balance.pending].map((entry) => entry.currency))];
  if (currencies.length === 0)
    return (
      <Empty>
        <p>Nothing in the balance yet.</p>
      </Empty>
    );
  const amountOf = (list: Balance['available'], currency: string) =>
    Number(list.find((entry) => entry.currency === currency)?.amount ?? 0);
  return (
    <div className="tiles">
      {currencies.map((currency) => (
        <div key={currency} className="card tile">
          <h3>Available, {currency}</h3>
          <p className="figure">{formatMoney(amountOf(balance.available, currency), currency)}</p>
          <p className="muted small">Pending {formatMoney(amountOf(balance.pending, currency), currency)}</p>
        </div>
      ))}
    </div>
  );
}

/**
 * Type, customer (picked by name or email) and invoice (by its number, INV-000012, as the customer quotes
 * it: GET /search finds it); applied together, so the list is not fetched at every keystroke.
 */
function TransactionFilters({ filters, onApply }: { filters: Filters; onApply: (next: Partial<Filters>) => void }) {
  const [type, setType] = useState(filters.type);
  const [customer, setCustomer] = useState(filters.customer);
  const [invoiceNumber, setInvoiceNumber] = useState('');
  const [notFound, setNotFound] = useState<string>();
  const invoice = useQuery({
    queryKey: ['invoice', filters.invoice],
    queryFn: () => api.GET('/invoices/{id}', { params: { path: { id: filters.invoice } } }),
    enabled: filters.invoice !== '',
  });
  const apply = async (event: FormEvent) => {
    event.preventDefault();
    setNotFound(undefined);
    const number = invoiceNumber.trim();
    if (!number) return onApply({ type, customer });
    const found = await api.GET('/search', { params: { query: { query: number } } });
    const hit = found.data.find((each) => each.object === 'invoice');
    if (!hit) return setNotFound(`No invoice ${number} in this account.`);
    onApply({ type, customer, invoice: hit.id });
  };
  return (
    <form className="filters" onSubmit={(event) => void apply(event)} aria-label="Filters">
      <label>
        Type
        <select aria-label="Type" value={type} onChange={(event) => setType(event.target.value)}>
          <option value="">Any</option>
          {TYPES.map((value) => (
            <option key={value} value={value}>
              {value}
            </option>
          ))}
        </select>
      </label>
      <CustomerPicker label="Customer" value={customer} onChange={setCustomer} />
      {filters.invoice ? (
        <div className="picker">
          <span className="picker-label">Invoice</span>
          <span className="picked">
            <span>{invoice.data ? invoiceName(invoice.data) : invoice.isError ? 'Unknown invoice' : 'Loading…'}</span>
            <button type="button" className="secondary" onClick={() => onApply({ type, customer, invoice: '' })}>
              Clear invoice
            </button>
          </span>
        </div>
      ) : (
        <label>
          Invoice number
          <input
            value={invoiceNumber}
            onChange={(event) => setInvoiceNumber(event.target.value)}
            placeholder="INV-000012"
            aria-invalid={notFound ? true : undefined}
          />
        </label>
      )}
      <button type="submit" className="secondary">
        Apply
      </button>
      {notFound && (
        <p className="error" role="alert">
          {notFound}
        </p>
      )}
    </form>
  );
}
