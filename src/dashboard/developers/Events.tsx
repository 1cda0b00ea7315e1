import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import { formatDateTime } from '../components/format';
import { listAddress, listFilters, navigate, useLocation } from '../router';
import { Field, Form } from '../components/form';
import { Table } from '../components/Table';
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
  const filtered = Boolean(filters.type || filters.object);

  return (
    <>
      <h2>Events</h2>
      <p className="muted">What changed in the account, as webhooks send it: each event with its JSON.</p>
      <Form
        layout="inline"
        submit="Filter"
        submitClass="secondary"
        onSubmit={() => go({ type: typed.type.trim(), object: typed.object.trim() })}
        extra={
          filtered && (
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
          )
        }
      >
        <Field
          label="Type"
          value={typed.type}
          onValue={(type) => setTyped({ ...typed, type })}
          placeholder="invoice.* or invoice.finalized"
        />
        <Field
          label="Object id"
          value={typed.object}
          onValue={(object) => setTyped({ ...typed, object })}
          placeholder="cus_…, sub_…"
        />
      </Form>
      <Table
        query={events}
        rows={events.data?.data}
        rowKey={(event) => event.id}
        frame="compact"
        empty={filtered ? 'No event matches these filters.' : 'No event yet: changes to the account are listed here.'}
        columns={[
          {
            header: 'Event',
            className: 'break',
            cell: (event) => (
              <>
                {event.type}
                <div className="muted small break">
                  <code>{event.id}</code>
                  <span className="show-narrow"> · {formatDateTime(event.created)}</span>
                </div>
              </>
            ),
          },
          { header: 'Object', cell: (event) => <EventObjectLink event={event} />, className: 'break', wide: true },
          { header: 'Time', cell: (event) => formatDateTime(event.created), wide: true },
          {
            header: 'JSON',
            headerHidden: true,
            cell: (event) => (
              <JsonToggle
                event={event}
                shown={open === event.id}
                onToggle={() => setOpen(open === event.id ? undefined : event.id)}
              />
            ),
          },
        ]}
        detail={(event) =>
          open === event.id ? { id: `event-${event.id}`, content: <EventJson event={event} /> } : undefined
        }
        pages={{ list: events.data, page: filters.page, onPage: (page) => go({ page }) }}
      />
    </>
  );
}
