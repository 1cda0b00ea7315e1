import { useState, type ReactNode } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import type { Customer, TestClock } from '../api/types';
import { formatDateTime } from '../components/format';
import { Confirm, Dialog } from '../components/dialogs';
import { Field, SelectField, useIdempotencyKeys } from '../components/form';
import { navigate } from '../router';
import { readTestClocks, TEST_CLOCKS_KEY } from '../settings/TestClocks';

/** Text fields of a form: '' is "not given" (left out of the body, so the API keeps or omits it). */
function given<Fields extends Record<string, string>>(fields: Fields): Partial<Fields> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value.trim() !== '')) as Partial<Fields>;
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
      const { name, ...optional } = fields;
      const body = { name, ...given(optional) };
      return api.POST('/customers', { body, params: { header: { 'Idempotency-Key': keys.keyFor(body) } } });
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
        <Dialog
          title="New customer"
          submit="Create customer"
          action={create}
          onSubmit={() => create.mutate()}
          onClose={() => setOpen(false)}
        >
          <Field label="Name" param="name" value={fields.name} onValue={set('name')} required />
          <Field label="Email" param="email" type="email" value={fields.email} onValue={set('email')} />
          <Field label="Phone" param="phone" type="tel" value={fields.phone} onValue={set('phone')} />
          <Field label="Description" param="description" value={fields.description} onValue={set('description')} />
          {clocks.data && (
            <TestClockPicker clocks={clocks.data.data} value={fields.test_clock} onChange={set('test_clock')} />
          )}
        </Dialog>
      )}
    </>
  );
}

/** Test mode's choice of a clock for a new customer: none (the wall clock) or one of the account's. */
function TestClockPicker(props: { clocks: TestClock[]; value: string; onChange: (id: string) => void }) {
  return (
    <SelectField
      label="Test clock"
      param="test_clock"
      value={props.value}
      onValue={props.onChange}
      hint={
        <span className="muted small">
          Test mode: its subscriptions, plans and invoices run on the clock&rsquo;s time; it cannot be changed later.
        </span>
      }
    >
      <option value="">None: the real time</option>
      {props.clocks.map((clock) => (
        <option key={clock.id} value={clock.id}>
          {clock.name ?? clock.id}, at {formatDateTime(clock.frozen_time)}
        </option>
      ))}
    </SelectField>
  );
}

/** Edit (name and email, what PATCH /customers/{id} changes) and delete, each asking first. */
export function CustomerActions({ customer, children }: { customer: Customer; children?: ReactNode }) {
  const queryClient = useQueryClient();
  const [asking, setAsking] = useState<'edit' | 'delete'>();
  const [fields, setFields] = useState({ name: customer.name, email: customer.email ?? '' });
  const path = { params: { path: { externalKey: customer.id } } };
  const save = useMutation({
    mutationFn: () =>
      api.PATCH('/customers/{externalKey}', {
        ...path,
        body: { name: fields.name, ...given({ email: fields.email }) },
      }),
    onSuccess: (updated) => {
      queryClient.setQueryData(['customer', customer.id], updated);
      void queryClient.invalidateQueries({ queryKey: ['customers'] });
      setAsking(undefined);
    },
  });
  const remove = useMutation({
    mutationFn: () => api.DELETE('/customers/{externalKey}', path),
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
        <Dialog
          title={`Edit ${customer.name}`}
          submit="Save"
          action={save}
          onSubmit={() => save.mutate()}
          onClose={() => setAsking(undefined)}
        >
          <Field
            label="Name"
            param="name"
            value={fields.name}
            onValue={(name) => setFields({ ...fields, name })}
            required
          />
          <Field
            label="Email"
            param="email"
            type="email"
            value={fields.email}
            onValue={(email) => setFields({ ...fields, email })}
          />
        </Dialog>
      )}
      {asking === 'delete' && (
        <Confirm
          title={`Delete ${customer.name}?`}
          message="Their draft invoices are voided and their payment methods detached; a customer still billed (a subscription, a plan or an open invoice) cannot be deleted. This cannot be undone."
          confirm="Delete customer"
          danger
          action={remove}
          onConfirm={() => remove.mutate()}
          onClose={() => setAsking(undefined)}
        />
      )}
    </div>
  );
}
