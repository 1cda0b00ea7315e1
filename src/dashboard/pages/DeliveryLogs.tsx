import { Fragment, useState } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type DeliveryLog as Delivery, type Page } from '../api';
import { formatDateTime } from '../format';
import { Link, navigate, useLocation } from '../router';
import {
  Confirm,
  DisclosureButton,
  Empty,
  Failure,
  Loading,
  Notice,
  Pager,
  StatusBadge,
  TableHead,
  useIdempotencyKeys,
} from './common';

const TAKE = 20;
const STATUSES = ['pending', 'retry', 'success', 'failure'];
const BASE = '/developers/logs';

function addressOf(status: string, page: number): string {
  const params = new URLSearchParams();
  if (status) params.set('status', status);
  if (page > 1) params.set('page', String(page));
  const suffix = params.toString();
  return `${BASE}${suffix ? `?${suffix}` : ''}`;
}

/** The webhook delivery log, newest first (GET /webhook/logs): one row per event and destination. */
export function DeliveryLogs() {
  const { search } = useLocation();
  const status = STATUSES.includes(search.get('status') ?? '') ? search.get('status')! : '';
  const page = Math.max(1, Number(search.get('page')) || 1);
  const [open, setOpen] = useState<string>();
  const [asking, setAsking] = useState<Delivery>();
  const [notice, setNotice] = useState<string>();
  const queryClient = useQueryClient();
  // One key per delivery resent: a double click, or a second confirm after a lost answer, resends once.
  const keys = useIdempotencyKeys();
  const resend = useMutation({
    mutationFn: (delivery: Delivery) =>
      api<Delivery>('POST', `/webhook/logs/${encodeURIComponent(delivery.id)}/resend`, undefined, {
        idempotencyKey: keys.keyFor({ resend: delivery.id }),
      }),
    onSuccess: (resent) => {
      keys.done();
      setNotice(`${resent.event_type} ${resent.event_id} is being sent again (resend ${resent.resend}).`);
      void queryClient.invalidateQueries({ queryKey: ['webhook-logs'] });
    },
    onSettled: () => setAsking(undefined),
  });
  const logs = useQuery({
    queryKey: ['webhook-logs', status, page],
    queryFn: () => {
      const params = new URLSearchParams({ page: String(page), take: String(TAKE) });
      if (status) params.set('status', status);
      return api<Page<Delivery>>('GET', `/webhook/logs?${params.toString()}`);
    },
    placeholderData: keepPreviousData,
  });

  return (
    <>
      <h2>Delivery logs</h2>
      <Notice text={notice} />
      {resend.isError && <Failure error={resend.error} />}
      {asking && (
        <Confirm
          title="Resend this event?"
          message={`${asking.event_type} ${asking.event_id} will be delivered again to ${asking.destination}, with the same payload and id.`}
          confirm="Resend"
          danger={false}
          busy={resend.isPending}
          onConfirm={() => resend.mutate(asking)}
          onClose={() => setAsking(undefined)}
        />
      )}
      <nav className="tabs" aria-label="Delivery status">
        {['', ...STATUSES].map((value) => (
          <Link key={value || 'all'} to={addressOf(value, 1)} aria-current={status === value ? 'page' : undefined}>
            {value || 'All'}
          </Link>
        ))}
      </nav>
      {logs.isPending ? (
        <Loading />
      ) : logs.isError ? (
        <Failure error={logs.error} />
      ) : logs.data.data.length === 0 ? (
        <Empty>
          <p>{status ? `No delivery is ${status}.` : 'No deliveries yet: events are logged here as they are sent.'}</p>
        </Empty>
      ) : (
        <div className="card table-card compact">
          <table>
            <TableHead
              columns={[
                'Event',
                'Status',
                { label: 'Attempts', wide: true },
                { label: 'Time', wide: true },
                { label: 'Actions', hidden: true },
              ]}
            />
            <tbody>
              {logs.data.data.map((delivery) => {
                const shown = open === delivery.id;
                const panel = `payload-${delivery.id}`;
                return (
                  <Fragment key={delivery.id}>
                    <tr>
                      <td className="break">
                        {delivery.event_type}
                        <div className="muted small break">
                          <code>{delivery.event_id}</code>
                          {delivery.resend > 0 && ` · resend ${delivery.resend}`}
                        </div>
                      </td>
                      <td>
                        <StatusBadge status={delivery.status} />
                        <div className="small">
                          {delivery.status_code ? `HTTP ${delivery.status_code}` : 'no answer'}
                        </div>
                      </td>
                      <td className="hide-narrow">{delivery.attempt_count}</td>
                      <td className="hide-narrow">{formatDateTime(delivery.created)}</td>
                      <td>
                        <div className="row-actions">
                          <button
                            type="button"
                            className="secondary"
                            aria-label={`Resend ${delivery.event_type} ${delivery.event_id}`}
                            onClick={() => {
                              setNotice(undefined);
                              resend.reset();
                              setAsking(delivery);
                            }}
                          >
                            Resend
                          </button>
                          <DisclosureButton
                            shown={shown}
                            controls={panel}
                            of={`${delivery.event_type} ${delivery.event_id}`}
                            label="payload"
                            onToggle={() => setOpen(shown ? undefined : delivery.id)}
                          />
                        </div>
                      </td>
                    </tr>
                    {shown && (
                      <tr id={panel}>
                        <td colSpan={5}>
                          <DeliveryDetail delivery={delivery} />
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
      {logs.data && (
        <Pager
          page={page}
          hasNext={page < logs.data.meta.pagesTotal}
          onPage={(next) => navigate(addressOf(status, next), { replace: true })}
          label={`Page ${page} of ${Math.max(1, logs.data.meta.pagesTotal)}`}
        />
      )}
    </>
  );
}

function DeliveryDetail({ delivery }: { delivery: Delivery }) {
  return (
    <div className="delivery-detail">
      <p className="small">
        To <code>{delivery.destination}</code>
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
