import { useState, type ReactNode } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import type { EventObject } from '../api/types';
import { StatusBadge } from './badges';
import { Empty, Loaded } from './feedback';
import { formatDateTime } from './format';
import { objectPath } from './links';
import { DisclosureButton, PagesOf } from './lists';
import { Link } from '../router';

/** The id an event is about (the id in its data), linked to its page where the dashboard has one. */
export function EventObjectLink({ event }: { event: EventObject }) {
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

export function JsonToggle({ event, shown, onToggle }: { event: EventObject; shown: boolean; onToggle: () => void }) {
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

export function EventJson({ event }: { event: EventObject }) {
  return (
    <pre className="payload" tabIndex={0} aria-label={`JSON of ${event.id}`}>
      {JSON.stringify(event, null, 2)}
    </pre>
  );
}

/** A timeline's items once read, or its empty state. */
function Timeline<Item>({
  items,
  empty,
  children,
}: {
  items: { isPending: boolean; isError: boolean; error: unknown; data: { data: Item[] } | undefined };
  empty: string;
  children: (item: Item) => ReactNode;
}) {
  return (
    <Loaded query={items}>
      {({ data }) =>
        data.length === 0 ? (
          <Empty>
            <p>{empty}</p>
          </Empty>
        ) : (
          <ol className="card list timeline">{data.map(children)}</ol>
        )
      }
    </Loaded>
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
    queryFn: () => api.GET('/events', { params: { query: { ...filter, take: 10, page } } }),
    placeholderData: keepPreviousData,
  });
  return (
    <section aria-labelledby="timeline-title">
      <h2 id="timeline-title">Events</h2>
      <Timeline items={events} empty="No event yet.">
        {(event) => {
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
        }}
      </Timeline>
      <PagesOf list={events.data} page={page} onPage={setPage} />
    </section>
  );
}

const KIND_LABELS: Record<string, string> = {
  invoice: 'Invoice',
  receipt: 'Receipt',
  payment_failed: 'Failed payment',
  payment_action_required: 'Payment to authenticate',
  installment_failed: 'Failed installment',
  renewal_reminder: 'Renewal reminder',
  trial_ending: 'Trial ending',
};

/**
 * The emails sent to the customer, or about the invoice (GET /emails, docs/api.md "Emails"), newest
 * first, each with its status: queued while the SMTP server has not taken it, sent, or failed (why).
 */
export function EmailTimeline({
  filter,
  version,
}: {
  filter: { customer: string } | { invoice: string };
  /** The object as shown: when it changes (an action on the page), its emails are read again. */
  version: unknown;
}) {
  const [page, setPage] = useState(1);
  const emails = useQuery({
    queryKey: ['emails', filter, page, version],
    queryFn: () => api.GET('/emails', { params: { query: { ...filter, take: 10, page } } }),
    placeholderData: keepPreviousData,
  });
  return (
    <section aria-labelledby="emails-title">
      <h2 id="emails-title">Emails</h2>
      <Timeline items={emails} empty="No email sent yet.">
        {(email) => (
          <li key={email.id}>
            <div className="timeline-row">
              <span>
                <strong>{KIND_LABELS[email.kind] ?? email.kind}</strong> {email.subject}{' '}
                <span className="muted small">
                  to {email.to} · {formatDateTime(email.sent_at ?? email.failed_at ?? email.created)}
                  {email.status === 'failed' && email.last_response ? ` · ${email.last_response}` : ''}
                </span>
              </span>
              <StatusBadge status={email.status} />
            </div>
          </li>
        )}
      </Timeline>
      <PagesOf list={emails.data} page={page} onPage={setPage} />
    </section>
  );
}
