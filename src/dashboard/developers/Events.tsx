import { Fragment, useState, type FormEvent } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import { formatDateTime } from '../components/format';
import { listAddress, listFilters, navigate, useLocation } from '../router';
import { listPlaceholder, PagesOf, TableHead } from '../components/common';
import { EventJson, EventObjectLink, JsonToggle } from '../components/timelines';

const BASE = '/developers/events';
const FILTERS = ['type', 'object'] as const;

/** Developers, Events: every event of the account, newest first, filtered by type (or group) and object (GET /events). */
export function EventsList() {
  const { search } = useLocation();
  const filters = listFilters(search, FILTERS);
  const [typed, setTyped] = useState({ type: filters.type, object: filters.object });
  const [open, setOpen] = useState<string>();
  const go = (next: Partial<typeof filters>) =>
    navigate(listAddress(BASE, { ...filters, page: 1, ...next }), { replace: true });
  const events = useQuery({
    queryKey: ['events', filters],
    queryFn: () =>
      api.GET('/events', {
        params: {
          query: { page: filters.page, take: 20, type: filters.type || undefined, object: filters.object || undefined },
        },
      }),
    placeholderData: keepPreviousData,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    go({ type: typed.type.trim(), object: typed.object.trim() });
  };
  const filtered = Boolean(filters.type || filters.object);

  return (
    <>
      <h2>Events</h2>
      <p className="muted">What changed in the account, as webhooks send it: each event with its JSON.</p>
      <form className="filters" onSubmit={submit}>
        <label>
          Type
          <input
            value={typed.type}
            onChange={(event) => setTyped({ ...typed, type: event.target.value })}
            placeholder="invoice.* or invoice.finalized"
          />
        </label>
        <label>
          Object id
          <input
            value={typed.object}
            onChange={(event) => setTyped({ ...typed, object: event.target.value })}
            placeholder="cus_…, sub_…"
          />
        </label>
        <button type="submit" className="secondary">
          Filter
        </button>
        {filtered && (
          <button
            type="button"
            className="secondary"
            onClick={() => {
              setTyped({ type: '', object: '' });
              go({ type: '', object: '' });
            }}
          >
            Clear
          </button>
        )}
      </form>
      {listPlaceholder(
        events,
        filtered ? 'No event matches these filters.' : 'No event yet: changes to the account are listed here.',
      ) ?? (
        <div className="card table-card compact">
          <table>
            <TableHead
              columns={[
                'Event',
                { label: 'Object', wide: true },
                { label: 'Time', wide: true },
                { label: 'JSON', hidden: true },
              ]}
            />
            <tbody>
              {(events.data?.data ?? []).map((event) => {
                const shown = open === event.id;
                return (
                  <Fragment key={event.id}>
                    <tr>
                      <td className="break">
                        {event.type}
                        <div className="muted small break">
                          <code>{event.id}</code>
                          <span className="show-narrow"> · {formatDateTime(event.created)}</span>
                        </div>
                      </td>
                      <td className="hide-narrow break">
                        <EventObjectLink event={event} />
                      </td>
                      <td className="hide-narrow">{formatDateTime(event.created)}</td>
                      <td>
                        <JsonToggle
                          event={event}
                          shown={shown}
                          onToggle={() => setOpen(shown ? undefined : event.id)}
                        />
                      </td>
                    </tr>
                    {shown && (
                      <tr id={`event-${event.id}`}>
                        <td colSpan={4}>
                          <EventJson event={event} />
                        </td>
                      </tr>
                    )}
                  </Fragment>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <PagesOf list={events.data} page={filters.page} onPage={(page) => go({ page })} />
    </>
  );
}
