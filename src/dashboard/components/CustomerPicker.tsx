import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import { useSearchList } from './combobox';
import { readCustomer } from './links';

/**
 * A customer filter picked by name or email, never pasted as an id: GET /customers/search as one types
 * (useSearchList's keys and timing), Clear empties the filter. `value` is the picked customer's id ('' for
 * any); a value that came in the address is shown by its name (one read of that customer).
 */
export function CustomerPicker({
  label,
  value,
  onChange,
}: {
  label: string;
  value: string;
  onChange: (id: string) => void;
}) {
  const picked = useQuery({
    queryKey: ['customer', value],
    queryFn: () => readCustomer(value),
    enabled: value !== '',
  });
  const search = useSearchList(
    'customer-search',
    (query) => api.GET('/customers/search', { params: { query: { search: query } } }),
    (match) => onChange(match.id),
  );
  const { query, hits, settled, shown } = search;

  if (value !== '')
    return (
      <div className="picker">
        <span className="picker-label">{label}</span>
        <span className="picked">
          <span>{picked.data?.name ?? (picked.isError ? 'Unknown customer' : 'Loading…')}</span>
          <button type="button" className="secondary" onClick={() => onChange('')} aria-label={`Clear ${label}`}>
            Clear
          </button>
        </span>
      </div>
    );
  return (
    <div className="picker" ref={search.box}>
      <label>
        {label}
        <input {...search.inputProps} placeholder="Name or email" />
      </label>
      {shown ? (
        <ul className="search-hits" id={search.listId} role="listbox" aria-label={`${label}: matches`}>
          {search.error ? (
            <li className="search-note" role="alert">
              {search.error.message}
            </li>
          ) : hits.length === 0 ? (
            <li className="search-note">{settled ? `No customer matches “${query}”.` : 'Searching…'}</li>
          ) : (
            hits.map((hit, index) => (
              <li key={hit.id} {...search.optionProps(hit, index)}>
                <span className="search-title">{hit.name}</span>
                {hit.email ? <span className="search-detail">{hit.email}</span> : null}
              </li>
            ))
          )}
        </ul>
      ) : null}
    </div>
  );
}
