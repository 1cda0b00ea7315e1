import { useState, type ReactNode } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, type Customer } from '../api';
import { navigate } from '../router';
import { Confirm, Failure, FormDialog, TextField, useIdempotencyKeys } from './common';

/** Text fields of a form: '' is "not given" (left out of the body, so the API keeps or omits it). */
function given(fields: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value.trim() !== ''));
}

/** "New customer": a form in a dialog; the new customer's page opens once it is created. */
export function NewCustomer() {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [fields, setFields] = useState({ name: '', email: '', phone: '', description: '' });
  const set = (name: keyof typeof fields) => (value: string) => setFields({ ...fields, [name]: value });
  const keys = useIdempotencyKeys();
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
          onSubmit={() => create.mutate()}
          onClose={() => setOpen(false)}
        >
          <TextField label="Name" value={fields.name} onChange={set('name')} required />
          <TextField label="Email" type="email" value={fields.email} onChange={set('email')} />
          <TextField label="Phone" type="tel" value={fields.phone} onChange={set('phone')} />
          <TextField label="Description" value={fields.description} onChange={set('description')} />
        </FormDialog>
      )}
    </>
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
