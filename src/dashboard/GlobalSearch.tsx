import { useEffect, useId, useRef, useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, type SearchHit, type SearchResult } from './api';
import { navigate } from './router';

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
  const [typed, setTyped] = useState('');
  const [query, setQuery] = useState('');
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const listId = useId();
  const box = useRef<HTMLDivElement>(null);

  // A moment after the last key, as the lists' own search boxes do.
  useEffect(() => {
    const timer = setTimeout(() => setQuery(typed.trim()), 250);
    return () => clearTimeout(timer);
  }, [typed]);

  const result = useQuery({
    queryKey: ['search', query],
    queryFn: () => api<SearchResult>('GET', `/search?${new URLSearchParams({ query })}`),
    enabled: query !== '',
    placeholderData: keepPreviousData,
  });
  const hits = query !== '' ? (result.data?.data ?? []) : [];
  const settled = query !== '' && query === typed.trim() && !result.isFetching;
  const shown = open && query !== '';

  useEffect(() => setActive(0), [query]);
  // A click anywhere else closes the list.
  useEffect(() => {
    const close = (event: MouseEvent) => {
      if (box.current && !box.current.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('mousedown', close);
    return () => document.removeEventListener('mousedown', close);
  }, []);

  const openHit = (hit: SearchHit) => {
    navigate(hitPath(hit));
    setTyped('');
    setQuery('');
    setOpen(false);
  };

  const onKeyDown = (event: React.KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Escape') return setOpen(false);
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      setOpen(true);
      if (hits.length === 0) return;
      const step = event.key === 'ArrowDown' ? 1 : -1;
      setActive((current) => (current + step + hits.length) % hits.length);
      return;
    }
    if (event.key === 'Enter') {
      event.preventDefault();
      const hit = hits[active];
      if (hit && settled) openHit(hit);
    }
  };

  return (
    <div className="global-search" ref={box}>
      <label>
        <span className="visually-hidden">Find customers, invoices, subscriptions</span>
        <input
          type="search"
          role="combobox"
          aria-expanded={shown}
          aria-controls={listId}
          aria-autocomplete="list"
          aria-activedescendant={shown && hits[active] ? `${listId}-${active}` : undefined}
          placeholder="Search: id, INV-…, name or email"
          value={typed}
          onChange={(event) => {
            setTyped(event.target.value);
            setOpen(true);
          }}
          onFocus={() => setOpen(true)}
          onKeyDown={onKeyDown}
        />
      </label>
      {shown ? (
        <ul className="search-hits" id={listId} role="listbox" aria-label="Search results">
          {result.isError ? (
            <li className="search-note" role="alert">
              {result.error.message}
            </li>
          ) : hits.length === 0 ? (
            <li className="search-note">{settled ? `Nothing found for “${query}”.` : 'Searching…'}</li>
          ) : (
            hits.map((hit, index) => (
              <li
                key={`${hit.object}:${hit.id}`}
                id={`${listId}-${index}`}
                role="option"
                aria-selected={index === active}
                onMouseDown={(event) => event.preventDefault()}
                onClick={() => openHit(hit)}
                onMouseEnter={() => setActive(index)}
              >
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
