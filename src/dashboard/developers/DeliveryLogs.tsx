import { useState } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import type { DeliveryLog as Delivery, WebhookDestination as Destination } from '../api/types';
import { formatDateTime } from '../components/format';
import { navigate, oneOf, useLocation } from '../router';
import { StatusBadge } from '../components/badges';
import { Confirm } from '../components/dialogs';
import { Failure, Notice, type QueryState } from '../components/feedback';
import { useIdempotencyKeys } from '../components/form';
import { DisclosureButton, StatusTabs } from '../components/lists';
import { Table, type Pages } from '../components/Table';
import { DESTINATIONS } from './WebhookDestinations';

const TAKE = 20;
const STATUSES = ['pending', 'retry', 'success', 'failure'] as const;
const BASE = '/developers/logs';
/** A destination id as the API takes it (`we_...`); anything else in the address is ignored. */
const DESTINATION_ID = /^[a-z]+_[a-zA-Z0-9]+$/;

interface Filters {
  status: string;
  destination: string;
  page: number;
}

function addressOf({ status, destination, page }: Filters): string {
  const params = new URLSearchParams();
  if (status) params.set('status', status);
  if (destination) params.set('destination', destination);
  if (page > 1) params.set('page', String(page));
  const suffix = params.toString();
  return `${BASE}${suffix ? `?${suffix}` : ''}`;
}

/**
 * A URL as a column can hold it: without its scheme, and with the middle of a long one left out (the
 * whole URL is the cell's title and is in the delivery's details).
 */
function shortUrl(url: string, max = 40): string {
  let shown = url;
  try {
    const parsed = new URL(url);
    shown = `${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}${parsed.search}`;
  } catch {
    // Not a URL: shown as it is.
  }
  if (shown.length <= max) return shown;
  const head = Math.ceil((max - 1) * 0.6);
  return `${shown.slice(0, head)}…${shown.slice(shown.length - (max - 1 - head))}`;
}

/** The webhook delivery log, newest first (GET /webhook/logs): one row per event and destination. */
export function DeliveryLogs() {
  const { search } = useLocation();
  const status = oneOf(search.get('status') ?? '', STATUSES) ?? '';
  const destination = DESTINATION_ID.test(search.get('destination') ?? '') ? search.get('destination')! : '';
  const page = Math.max(1, Number(search.get('page')) || 1);
  const filters = { status, destination, page };
  // The same list as the destinations' page (and its cache): the filter's choices and the column's URLs.
  const destinations = useQuery({
    queryKey: DESTINATIONS,
    queryFn: () => api.GET('/webhook/destination'),
  });
  const destinationsById = destinations.data && new Map(destinations.data.map((item) => [item.id, item]));
  const [asking, setAsking] = useState<Delivery>();
  const [notice, setNotice] = useState<string>();
  const queryClient = useQueryClient();
  // One key per delivery resent: a double click, or a second confirm after a lost answer, resends once.
  const keys = useIdempotencyKeys();
  const resend = useMutation({
    mutationFn: (delivery: Delivery) =>
      api.POST('/webhook/logs/{id}/resend', {
        params: { path: { id: delivery.id }, header: { 'Idempotency-Key': keys.keyFor({ resend: delivery.id }) } },
      }),
    onSuccess: (resent) => {
      keys.done();
      setNotice(`${resent.event_type} ${resent.event_id} is being sent again (resend ${resent.resend}).`);
      void queryClient.invalidateQueries({ queryKey: ['webhook-logs'] });
    },
    onSettled: () => setAsking(undefined),
  });
  const logs = useQuery({
    queryKey: ['webhook-logs', status, destination, page],
    queryFn: () =>
      api.GET('/webhook/logs', {
        params: { query: { page, take: TAKE, status: status || undefined, destination: destination || undefined } },
      }),
    placeholderData: keepPreviousData,
  });
  const chosen = destination ? destinationsById?.get(destination) : undefined;
  const nothingFound = destination
    ? `No delivery to ${chosen ? shortUrl(chosen.url) : destination}${status ? ` with status ${status}` : ''}.`
    : status
      ? `No delivery is ${status}.`
      : 'No deliveries yet: events are logged here as they are sent.';

  return (
    <>
      <h2>Delivery logs</h2>
      <Notice text={notice} />
      {resend.isError && <Failure error={resend.error} />}
      {asking && (
        <Confirm
          title="Resend this event?"
          message={`${asking.event_type} ${asking.event_id} will be delivered again to ${asking.destination_url}, with the same payload and id.`}
          confirm="Resend"
          danger={false}
          action={{ isPending: resend.isPending }}
          onConfirm={() => resend.mutate(asking)}
          onClose={() => setAsking(undefined)}
        />
      )}
      <StatusTabs
        label="Delivery status"
        statuses={STATUSES}
        current={status}
        to={(value) => addressOf({ ...filters, status: value, page: 1 })}
      />
      <DestinationFilter
        destination={destination}
        destinations={destinations.data}
        known={chosen !== undefined || !destinationsById}
        onPick={(picked) => navigate(addressOf({ ...filters, destination: picked, page: 1 }))}
      />
      {destinations.isError && <Failure error={destinations.error} />}
      <DeliveryTable
        logs={logs}
        destinationsById={destinationsById}
        empty={nothingFound}
        pages={{
          list: logs.data,
          page,
          onPage: (next) => navigate(addressOf({ ...filters, page: next }), { replace: true }),
        }}
        onResend={(delivery) => {
          setNotice(undefined);
          resend.reset();
          setAsking(delivery);
        }}
      />
    </>
  );
}

/** The destinations to filter by, a destination in the address that is no longer among them (deleted) named so. */
function DestinationFilter(props: {
  destination: string;
  destinations: Destination[] | undefined;
  known: boolean;
  onPick: (destination: string) => void;
}) {
  return (
    <div className="filters">
      <label className="grow bounded">
        Destination
        <select
          aria-label="Destination"
          value={props.destination}
          onChange={(event) => props.onPick(event.target.value)}
        >
          <option value="">All destinations</option>
          {props.destinations?.map((item) => (
            <option key={item.id} value={item.id}>
              {`${shortUrl(item.url, 60)}${item.active ? '' : ' (disabled)'}`}
            </option>
          ))}
          {props.destination && !props.known && (
            <option value={props.destination}>{`${props.destination} (deleted or unknown)`}</option>
          )}
        </select>
      </label>
    </div>
  );
}

/** One row per event and destination; a row's payload and attempts shown under it on demand. */
function DeliveryTable(props: {
  logs: QueryState<{ data: Delivery[] }>;
  destinationsById: Map<string, Destination> | undefined;
  empty: string;
  pages: Pages;
  onResend: (delivery: Delivery) => void;
}) {
  const [open, setOpen] = useState<string>();
  return (
    <Table
      query={props.logs}
      rows={props.logs.data?.data}
      rowKey={(delivery) => delivery.id}
      frame="compact"
      empty={props.empty}
      pages={props.pages}
      columns={[
        {
          header: 'Event',
          className: 'break',
          cell: (delivery) => (
            <>
              {delivery.event_type}
              <div className="muted small break">
                <code>{delivery.event_id}</code>
                {delivery.resend > 0 && ` · resend ${delivery.resend}`}
              </div>
            </>
          ),
        },
        {
          header: 'Destination',
          cell: (delivery) => shortUrl(delivery.destination_url),
          title: (delivery) => delivery.destination_url,
          // Not among the account's destinations once they are read: deleted (its log stays).
          note: (delivery) => props.destinationsById && !props.destinationsById.has(delivery.destination) && 'deleted',
          wide: true,
        },
        {
          header: 'Status',
          cell: (delivery) => (
            <>
              <StatusBadge status={delivery.status} />
              <div className="small">{delivery.status_code ? `HTTP ${delivery.status_code}` : 'no answer'}</div>
            </>
          ),
        },
        { header: 'Attempts', cell: (delivery) => delivery.attempt_count, wide: true },
        { header: 'Time', cell: (delivery) => formatDateTime(delivery.created), wide: true },
        {
          header: 'Actions',
          headerHidden: true,
          cell: (delivery) => (
            <div className="row-actions">
              <button
                type="button"
                className="secondary"
                aria-label={`Resend ${delivery.event_type} ${delivery.event_id}`}
                onClick={() => props.onResend(delivery)}
              >
                Resend
              </button>
              <DisclosureButton
                shown={open === delivery.id}
                controls={`payload-${delivery.id}`}
                of={`${delivery.event_type} ${delivery.event_id}`}
                label="payload"
                onToggle={() => setOpen(open === delivery.id ? undefined : delivery.id)}
              />
            </div>
          ),
        },
      ]}
      detail={(delivery) =>
        open === delivery.id
          ? { id: `payload-${delivery.id}`, content: <DeliveryDetail delivery={delivery} /> }
          : undefined
      }
    />
  );
}
function DeliveryDetail({ delivery }: { delivery: Delivery }) {
  return (
    <div className="delivery-detail">
      <p className="small">
        To <code className="break">{delivery.destination_url}</code> (<code>{delivery.destination}</code>)
        {delivery.error ? `; last error: ${delivery.error}` : ''}
        {delivery.next_attempt_at ? `; next attempt ${formatDateTime(delivery.next_attempt_at)}` : ''}
      </p>
      {delivery.attempts.length > 0 && (
        <ol className="small attempts">
          {delivery.attempts.map((attempt) => (
            <li key={attempt.attempt}>
              {formatDateTime(attempt.attempted_at)}: {attempt.outcome}
              {attempt.status_code ? ` (${attempt.status_code})` : ''}
              {attempt.error ? `, ${attempt.error}` : ''}, {attempt.duration_ms} ms
            </li>
          ))}
        </ol>
      )}
      <pre className="payload" tabIndex={0} aria-label={`Payload of ${delivery.event_id}`}>
        {JSON.stringify(delivery.payload, null, 2)}
      </pre>
    </div>
  );
}
