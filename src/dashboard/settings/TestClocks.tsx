import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiFailure } from '../api/client';
import type { TestClock } from '../api/types';
import { formatDateTime } from '../components/format';
import { Link } from '../router';
import { Failure, Loading, Notice, StatusBadge, useIdempotencyKeys } from '../components/common';
import { Confirm } from '../components/dialogs';
import { Field, Form } from '../components/form';

/** `2026-11-24T21:30` (what a datetime-local input holds), read as UTC. */
function secondsOfUtc(text: string): number {
  return Math.floor(Date.parse(`${text}:00Z`) / 1000);
}

function utcText(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 16);
}

/** The same day and time a calendar month later (the last day of a shorter month), in UTC. */
function monthLater(seconds: number): number {
  const date = new Date(seconds * 1000);
  const day = date.getUTCDate();
  date.setUTCDate(1);
  date.setUTCMonth(date.getUTCMonth() + 1);
  const last = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 0)).getUTCDate();
  date.setUTCDate(Math.min(day, last));
  return Math.floor(date.getTime() / 1000);
}

export const TEST_CLOCKS_KEY = ['test-clocks'];

/** The account's test clocks, newest first; null where the API has no test helpers (not test mode: 404). */
export async function readTestClocks() {
  try {
    return await api.GET('/test-helpers/test-clocks', { params: { query: { take: 100 } } });
  } catch (error) {
    if (error instanceof ApiFailure && error.status === 404) return null;
    throw error;
  }
}

/**
 * Settings, Test clocks (docs/api.md "Test clocks"): the account's clocks, a new one, advancing one and
 * the customers on each. Test mode only: where the API has no test helpers (its list answers 404) the
 * section is left out.
 */
export function TestClocksSection() {
  const clocks = useQuery({
    queryKey: TEST_CLOCKS_KEY,
    queryFn: readTestClocks,
    // While a clock advances, its status is read again until it is ready.
    refetchInterval: (query) => (query.state.data?.data.some((clock) => clock.status === 'advancing') ? 1000 : false),
  });
  // Shown once the API said whether it has test helpers (404 without test mode): never a flash of it in live mode.
  if (clocks.isPending || clocks.data === null) return null;
  return (
    <section className="card settings-section" aria-labelledby="clocks-heading">
      <h2 id="clocks-heading">Test clocks</h2>
      <p className="muted small">
        Test mode: the subscriptions and payment plans of a clock&rsquo;s customers run on its time. Times here are UTC.
      </p>
      <NewClock />
      {clocks.isError && <Failure error={clocks.error} />}
      {clocks.data?.data.length === 0 && <p>No test clock yet.</p>}
      <ul className="list clocks">
        {clocks.data?.data.map((clock) => (
          <Clock key={clock.id} clock={clock} />
        ))}
      </ul>
    </section>
  );
}

function NewClock() {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [start, setStart] = useState(() => utcText(Math.floor(Date.now() / 1000)));
  const [notice, setNotice] = useState<string>();
  const keys = useIdempotencyKeys();
  const create = useMutation({
    mutationFn: (body: { frozen_time: number; name?: string }) =>
      api.POST('/test-helpers/test-clocks', { body, params: { header: { 'Idempotency-Key': keys.keyFor(body) } } }),
    onSuccess: (clock) => {
      keys.done();
      setName('');
      setNotice(`Test clock ${clock.name ?? clock.id} created.`);
      void queryClient.invalidateQueries({ queryKey: TEST_CLOCKS_KEY });
    },
  });
  const submit = () => {
    setNotice(undefined);
    create.mutate({ frozen_time: secondsOfUtc(start), ...(name.trim() ? { name: name.trim() } : {}) });
  };
  return (
    <Form
      layout="inline"
      label="New test clock"
      submit="Create test clock"
      busyLabel="Creating…"
      action={create}
      onSubmit={submit}
      notice={notice}
    >
      <Field label="Name" value={name} onValue={setName} placeholder="Renewal rehearsal" />
      <Field label="Starts at (UTC)" type="datetime-local" required value={start} onValue={setStart} />
    </Form>
  );
}

function Clock({ clock }: { clock: TestClock }) {
  const queryClient = useQueryClient();
  const label = clock.name ?? clock.id;
  const [target, setTarget] = useState(() => utcText(monthLater(clock.frozen_time)));
  const [asking, setAsking] = useState(false);
  const [notice, setNotice] = useState<string>();
  const keys = useIdempotencyKeys();
  const customers = useQuery({
    queryKey: ['customers', { test_clock: clock.id }, clock.frozen_time, clock.status],
    queryFn: () => api.GET('/customers', { params: { query: { test_clock: clock.id, take: 100 } } }),
  });
  const advance = useMutation({
    mutationFn: (body: { frozen_time: number }) =>
      api.POST('/test-helpers/test-clocks/{id}/advance', {
        params: { path: { id: clock.id }, header: { 'Idempotency-Key': keys.keyFor(body) } },
        body,
      }),
    onSuccess: (advanced) => {
      keys.done();
      setNotice(`Advancing to ${formatDateTime(advanced.frozen_time)}.`);
      setTarget(utcText(monthLater(advanced.frozen_time)));
      void queryClient.invalidateQueries({ queryKey: TEST_CLOCKS_KEY });
    },
    onSettled: () => setAsking(false),
  });
  const ask = () => {
    setNotice(undefined);
    advance.reset();
    setAsking(true);
  };
  return (
    <li>
      <div className="timeline-row">
        <span>
          <strong>{label}</strong> <StatusBadge status={clock.status} />
          <span className="muted small">
            {' '}
            · at {formatDateTime(clock.frozen_time)} · <code>{clock.id}</code>
          </span>
        </span>
      </div>
      <Form
        layout="inline"
        label={`Advance ${label}`}
        submit="Advance"
        submitClass="secondary"
        disabled={clock.status === 'advancing' || advance.isPending}
        onSubmit={ask}
      >
        <Field label={`Advance ${label} to (UTC)`} type="datetime-local" required value={target} onValue={setTarget} />
      </Form>
      {asking && (
        <Confirm
          title={`Advance ${label}?`}
          message={`Its customers' subscriptions and payment plans do everything that falls due until ${formatDateTime(secondsOfUtc(target))}: invoices, charges, retries, events. A clock never goes back.`}
          confirm="Advance"
          danger={false}
          action={{ isPending: advance.isPending }}
          onConfirm={() => advance.mutate({ frozen_time: secondsOfUtc(target) })}
          onClose={() => setAsking(false)}
        />
      )}
      <Notice text={notice} />
      {advance.isError && <Failure error={advance.error} />}
      <h3 className="small">Customers on this clock</h3>
      {customers.isPending && <Loading />}
      {customers.isError && <Failure error={customers.error} />}
      {customers.data?.length === 0 && (
        <p className="muted small">None yet: a customer created with this clock&rsquo;s id in test_clock runs on it.</p>
      )}
      {customers.data && customers.data.length > 0 && (
        <ul className="small">
          {customers.data.map((customer) => (
            <li key={customer.id}>
              <Link to={`/customers/${customer.id}`}>{customer.name}</Link> <code>{customer.id}</code>
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}
