import { Fragment, useState, type FormEvent } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, type EventObject, type Page } from '../api';
import { formatDateTime } from '../components/format';
import { Link, listAddress, listFilters, listParams, navigate, useLocation } from '../router';
import { DisclosureButton, listPlaceholder, objectPath, PagesOf, TableHead } from './common';

const BASE = '/developers/events';
const FILTERS = ['type', 'object'] as const;

/** The id an event is about (the id in its data), linked to its page where the dashboard has one. */
function EventObjectLink({ event }: { event: EventObject }) {
  const id = (event.data as { id?: unknown } | null)?.id;
  if (typeof id !== 'string') return null;
  const to = objectPath(id);
  return to ? (
    <Link to={to}>
      <code>{id}</code>
    </Link>
  ) : (
    <code>{id}</code>
  );
}

function JsonToggle({ event, shown, onToggle }: { event: EventObject; shown: boolean; onToggle: () => void }) {
  return (
    <DisclosureButton
      shown={shown}
      controls={`event-${event.id}`}
      of={`${event.type} ${event.id}`}
      label="JSON"
      onToggle={onToggle}
    />
  );
}

function EventJson({ event }: { event: EventObject }) {
  return (
    <pre className="payload" tabIndex={0} aria-label={`JSON of ${event.id}`}>
      {JSON.stringify(event, null, 2)}
    </pre>
  );
}

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
    queryFn: () => {
      const params = listParams(filters);
      params.set('take', '20');
      return api<Page<EventObject>>('GET', `/events?${params}`);
    },
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

/**
 * An object's events, newest first, on its page: a customer's (with its subscriptions', invoices',
 * cards' and plans'), a subscription's or an invoice's.
 */
export function EventTimeline({
  filter,
  version,
}: {
  filter: { customer: string } | { object: string };
  /** The object as shown: when it changes (an action on the page), its events are read again. */
  version: unknown;
}) {
  const [page, setPage] = useState(1);
  const [open, setOpen] = useState<string>();
  const events = useQuery({
    queryKey: ['events', filter, page, version],
    queryFn: () =>
      api<Page<EventObject>>('GET', `/events?${new URLSearchParams({ ...filter, take: '10', page: String(page) })}`),
    placeholderData: keepPreviousData,
  });
  return (
    <section aria-labelledby="timeline-title">
      <h2 id="timeline-title">Events</h2>
      {listPlaceholder(events, 'No event yet.') ?? (
        <ol className="card list timeline">
          {(events.data?.data ?? []).map((event) => {
            const shown = open === event.id;
            return (
              <li key={event.id}>
                <div className="timeline-row">
                  <span>
                    <strong>{event.type}</strong>{' '}
                    <span className="muted small">
                      {formatDateTime(event.created)} · <EventObjectLink event={event} />
                    </span>
                  </span>
                  <JsonToggle event={event} shown={shown} onToggle={() => setOpen(shown ? undefined : event.id)} />
                </div>
                {shown && (
                  <div id={`event-${event.id}`}>
                    <EventJson event={event} />
                  </div>
                )}
              </li>
            );
          })}
        </ol>
      )}
      <PagesOf list={events.data} page={page} onPage={setPage} />
    </section>
  );
}
