import { useId, useState, type ReactNode } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Customer, type TestClock } from '../api';
import { formatDateTime } from '../components/format';
import { navigate } from '../router';
import { Confirm, Failure, FormDialog, paramError, TextField, useIdempotencyKeys } from './common';
import { readTestClocks, TEST_CLOCKS_KEY } from './TestClocks';

/** Text fields of a form: '' is "not given" (left out of the body, so the API keeps or omits it). */
function given(fields: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value.trim() !== ''));
}

/**
 * "New customer": a form in a dialog; the new customer's page opens once it is created. In test mode it can put
 * the customer on a test clock (docs/api.md "Test clocks": at creation only, as the API takes it).
 */
export function NewCustomer() {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [fields, setFields] = useState({ name: '', email: '', phone: '', description: '', test_clock: '' });
  const set = (name: keyof typeof fields) => (value: string) => setFields({ ...fields, [name]: value });
  const keys = useIdempotencyKeys();
  const clocks = useQuery({ queryKey: TEST_CLOCKS_KEY, queryFn: readTestClocks, enabled: open });
  const create = useMutation({
    mutationFn: () => {
      const body = { name: fields.name, ...given({ ...fields, name: '' }) };
      return api<Customer>('POST', '/customers', body, { idempotencyKey: keys.keyFor(body) });
    },
    onSuccess: (customer) => {
      keys.done();
      void queryClient.invalidateQueries({ queryKey: ['customers'] });
      navigate(`/customers/${customer.id}`);
    },
  });
  return (
    <>
      <button type="button" onClick={() => (create.reset(), setOpen(true))}>
        New customer
      </button>
      {open && (
        <FormDialog
          title="New customer"
          submit="Create customer"
          busy={create.isPending}
          error={create.error}
          fieldParams={['name', 'email', 'phone', 'description', 'test_clock']}
          onSubmit={() => create.mutate()}
          onClose={() => setOpen(false)}
        >
          <TextField
            label="Name"
            value={fields.name}
            onChange={set('name')}
            error={paramError(create.error, 'name')}
            required
          />
          <TextField
            label="Email"
            type="email"
            value={fields.email}
            onChange={set('email')}
            error={paramError(create.error, 'email')}
          />
          <TextField
            label="Phone"
            type="tel"
            value={fields.phone}
            onChange={set('phone')}
            error={paramError(create.error, 'phone')}
          />
          <TextField
            label="Description"
            value={fields.description}
            onChange={set('description')}
            error={paramError(create.error, 'description')}
          />
          {clocks.data && (
            <TestClockPicker
              clocks={clocks.data.data}
              value={fields.test_clock}
              onChange={set('test_clock')}
              error={paramError(create.error, 'test_clock')}
            />
          )}
        </FormDialog>
      )}
    </>
  );
}

/** Test mode's choice of a clock for a new customer: none (the wall clock) or one of the account's. */
function TestClockPicker(props: {
  clocks: TestClock[];
  value: string;
  onChange: (id: string) => void;
  error: string | undefined;
}) {
  const errorId = useId();
  const labelId = useId();
  return (
    <label className="field">
      <span id={labelId}>Test clock</span>
      <select
        aria-labelledby={labelId}
        value={props.value}
        onChange={(event) => props.onChange(event.target.value)}
        aria-invalid={props.error ? true : undefined}
        aria-describedby={props.error ? errorId : undefined}
      >
        <option value="">None: the real time</option>
        {props.clocks.map((clock) => (
          <option key={clock.id} value={clock.id}>
            {clock.name ?? clock.id}, at {formatDateTime(clock.frozen_time)}
          </option>
        ))}
      </select>
      {props.error && (
        <span className="error" id={errorId} role="alert">
          {props.error}
        </span>
      )}
      <span className="muted small">
        Test mode: its subscriptions, plans and invoices run on the clock&rsquo;s time; it cannot be changed later.
      </span>
    </label>
  );
}

/** Edit (name and email, what PATCH /customers/{id} changes) and delete, each asking first. */
export function CustomerActions({ customer, children }: { customer: Customer; children?: ReactNode }) {
  const queryClient = useQueryClient();
  const [asking, setAsking] = useState<'edit' | 'delete'>();
  const [fields, setFields] = useState({ name: customer.name, email: customer.email ?? '' });
  const path = `/customers/${encodeURIComponent(customer.id)}`;
  const save = useMutation({
    mutationFn: () => api<Customer>('PATCH', path, { name: fields.name, ...given({ email: fields.email }) }),
    onSuccess: (updated) => {
      queryClient.setQueryData(['customer', customer.id], updated);
      void queryClient.invalidateQueries({ queryKey: ['customers'] });
      setAsking(undefined);
    },
  });
  const remove = useMutation({
    mutationFn: () => api('DELETE', path),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['customers'] });
      queryClient.removeQueries({ queryKey: ['customer', customer.id] });
      navigate('/customers');
    },
  });
  return (
    <div className="actions">
      {children}
      <button
        type="button"
        className="secondary"
        onClick={() => (
          save.reset(),
          setFields({ name: customer.name, email: customer.email ?? '' }),
          setAsking('edit')
        )}
      >
        Edit
      </button>
      <button type="button" className="danger" onClick={() => (remove.reset(), setAsking('delete'))}>
        Delete customer
      </button>
      {asking === 'edit' && (
        <FormDialog
          title={`Edit ${customer.name}`}
          submit="Save"
          busy={save.isPending}
          error={save.error}
          onSubmit={() => save.mutate()}
          onClose={() => setAsking(undefined)}
        >
          <TextField label="Name" value={fields.name} onChange={(name) => setFields({ ...fields, name })} required />
          <TextField
            label="Email"
            type="email"
            value={fields.email}
            onChange={(email) => setFields({ ...fields, email })}
          />
        </FormDialog>
      )}
      {asking === 'delete' && (
        <Confirm
          title={`Delete ${customer.name}?`}
          message="Their draft invoices are voided and their payment methods detached; a customer still billed (a subscription, a plan or an open invoice) cannot be deleted. This cannot be undone."
          confirm="Delete customer"
          danger
          busy={remove.isPending}
          onConfirm={() => remove.mutate()}
          onClose={() => setAsking(undefined)}
        >
          {remove.isError && <Failure error={remove.error} />}
        </Confirm>
      )}
    </div>
  );
}
