import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';

/**
 * A search box with a list of hits as one types (the top bar's search, the customer pickers of the lists'
 * filters): the query is read a quarter second after the last key, arrows move through the hits, Enter picks
 * the active one once the hits answer what is typed, Escape closes the list, a click elsewhere too.
 */
export function useSearchList<Hit>(key: string, read: (query: string) => Promise<Hit[]>, pick: (hit: Hit) => void) {
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
  useEffect(() => setActive(0), [query]);
  // A click anywhere else closes the list.
  useEffect(() => {
    const close = (event: MouseEvent) => {
      if (box.current && !box.current.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('mousedown', close);
    return () => document.removeEventListener('mousedown', close);
  }, []);

  const result = useQuery({
    queryKey: [key, query],
    queryFn: () => read(query),
    enabled: query !== '',
    placeholderData: keepPreviousData,
  });
  const hits = query !== '' ? (result.data ?? []) : [];
  const settled = query !== '' && query === typed.trim() && !result.isFetching;
  const shown = open && query !== '';

  const choose = (hit: Hit) => {
    pick(hit);
    setTyped('');
    setQuery('');
    setOpen(false);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Escape') return setOpen(false);
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      setOpen(true);
      if (hits.length === 0) return;
      const step = event.key === 'ArrowDown' ? 1 : -1;
      setActive((current) => (current + step + hits.length) % hits.length);
      return;
    }
    if (event.key === 'Enter' && query !== '') {
      // Enter picks the hit, and never sends a form the box sits in.
      event.preventDefault();
      const hit = hits[active];
      if (hit && settled) choose(hit);
    }
  };
  /** The input's props: what it shows, its keys, and its combobox attributes. */
  const inputProps = {
    type: 'search',
    role: 'combobox',
    'aria-expanded': shown,
    'aria-controls': listId,
    'aria-autocomplete': 'list' as const,
    'aria-activedescendant': shown && hits[active] ? `${listId}-${active}` : undefined,
    value: typed,
    onChange: (event: { target: { value: string } }) => (setTyped(event.target.value), setOpen(true)),
    onFocus: () => setOpen(true),
    onKeyDown,
  };
  /** A hit's props in the list, at `index`. */
  const optionProps = (hit: Hit, index: number) => ({
    id: `${listId}-${index}`,
    role: 'option',
    'aria-selected': index === active,
    onMouseDown: (event: { preventDefault(): void }) => event.preventDefault(),
    onClick: () => choose(hit),
    onMouseEnter: () => setActive(index),
  });
  return { box, listId, query, hits, settled, shown, error: result.error, inputProps, optionProps };
}
