import { api } from './api/client';
import type { SearchHit } from './api/types';
import { navigate } from './router';
import { useSearchList } from './components/combobox';

const KINDS: Record<SearchHit['object'], string> = {
  customer: 'Customer',
  subscription: 'Subscription',
  invoice: 'Invoice',
  payment_plan: 'Payment plan',
  credit_note: 'Credit note',
};

/** Where a hit opens: its own screen; a credit note's is its invoice's. */
export function hitPath(hit: SearchHit): string {
  const id = encodeURIComponent(hit.id);
  switch (hit.object) {
    case 'customer':
      return `/customers/${id}`;
    case 'subscription':
      return `/subscriptions/${id}`;
    case 'invoice':
      return `/invoices/${id}`;
    case 'payment_plan':
      return `/payment-plans/${id}`;
    case 'credit_note':
      return `/invoices/${encodeURIComponent(hit.invoice ?? '')}`;
  }
}

/**
 * The search box of the top bar (GET /search): an id, an invoice or credit note number, a name or an
 * email, answered as one types; arrows move through the hits, Enter opens one, Escape closes the list.
 * "Why was this customer charged?" starts with finding the customer, whatever the agent was given.
 */
export function GlobalSearch() {
  const search = useSearchList(
    'search',
    async (query) => (await api.GET('/search', { params: { query: { query } } })).data,
    (hit: SearchHit) => navigate(hitPath(hit)),
  );
  const { query, hits, settled, shown } = search;

  return (
    <div className="global-search" ref={search.box}>
      <label>
        <span className="visually-hidden">Find customers, invoices, subscriptions</span>
        <input {...search.inputProps} placeholder="Search: id, INV-…, name or email" />
      </label>
      {shown ? (
        <ul className="search-hits" id={search.listId} role="listbox" aria-label="Search results">
          {search.error ? (
            <li className="search-note" role="alert">
              {search.error.message}
            </li>
          ) : hits.length === 0 ? (
            <li className="search-note">{settled ? `Nothing found for “${query}”.` : 'Searching…'}</li>
          ) : (
            hits.map((hit, index) => (
              <li key={`${hit.object}:${hit.id}`} {...search.optionProps(hit, index)}>
                <span className="search-kind">{KINDS[hit.object]}</span>
                <span className="search-title">{hit.title}</span>
                {hit.detail ? <span className="search-detail">{hit.detail}</span> : null}
              </li>
            ))
          )}
        </ul>
      ) : null}
    </div>
  );
}
