import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { components } from '../../client/schema';
import { api } from '../api/client';
import { centsFromText } from '../components/format';
import { priceLabel } from '../components/names';
import { flashOn } from '../components/flash';
import { Dialog } from '../components/dialogs';
import { Field, numberOf, SelectField, useIdempotencyKeys } from '../components/form';
import { navigate } from '../router';
import { settleNewSubscription } from '../billing/outcomes';

/** "New subscription" for this customer: a recurring price, a quantity and trial days; it starts now. */
export function NewSubscription({ customerId }: { customerId: string }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [price, setPrice] = useState('');
  const [quantity, setQuantity] = useState('1');
  const [trialDays, setTrialDays] = useState('0');
  const prices = useQuery({
    queryKey: ['prices', { type: 'recurring' }],
    queryFn: () =>
      api.GET('/prices', { params: { query: { take: 100, include: 'names', search: '{"type":"recurring"}' } } }),
    enabled: open,
  });
  const keys = useIdempotencyKeys();
  // The start date is taken when the dialog opens, so that sending the same form again is the same request.
  const [startDate, setStartDate] = useState(0);
  const create = useMutation({
    mutationFn: async () => {
      const body = {
        customer: customerId,
        items: [{ price, quantity: numberOf(quantity) }],
        trial_days: numberOf(trialDays),
        start_date: startDate,
      };
      const created = await api.POST('/subscriptions', {
        body,
        params: { header: { 'Idempotency-Key': keys.keyFor(body) } },
      });
      // The dialog stays busy until the first charge's outcome is known: the page it opens then tells the truth.
      return settleNewSubscription(created);
    },
    onSuccess: ({ subscription, invoice, outcome }) => {
      keys.done();
      queryClient.setQueryData(['subscription', subscription.id], subscription);
      if (invoice) queryClient.setQueryData(['invoice', invoice.id], invoice);
      // What the charge changed: the customer's "why", balance and cards, the lists.
      void queryClient.invalidateQueries({ queryKey: ['customer', customerId] });
      void queryClient.invalidateQueries({ queryKey: ['subscriptions'] });
      void queryClient.invalidateQueries({ queryKey: ['invoices'] });
      flashOn(`/subscriptions/${subscription.id}`, outcome);
      navigate(`/subscriptions/${subscription.id}`);
    },
  });
  return (
    <>
      <button
        type="button"
        className="secondary"
        onClick={() => (create.reset(), setStartDate(Math.floor(Date.now() / 1000)), setOpen(true))}
      >
        New subscription
      </button>
      {open && (
        <Dialog
          title="New subscription"
          submit="Create subscription"
          action={{ isPending: create.isPending, error: create.error ?? prices.error }}
          onSubmit={() => create.mutate()}
          onClose={() => setOpen(false)}
        >
          <SelectField label="Price" param="items.0.price" value={price} onValue={setPrice} required>
            <option value="">{prices.isPending ? 'Loading prices…' : 'Choose a recurring price'}</option>
            {prices.data?.data.map((option) => (
              <option key={option.id} value={option.id}>
                {priceLabel(option)}
              </option>
            ))}
          </SelectField>
          <Field
            label="Quantity"
            param="items.0.quantity"
            value={quantity}
            onValue={setQuantity}
            inputMode="numeric"
            required
          />
          <Field
            label="Trial days"
            param="trial_days"
            value={trialDays}
            onValue={setTrialDays}
            inputMode="numeric"
            required
          />
          <p className="muted small">
            It starts now; without a trial the first invoice is made and charged to the customer's default card at once,
            and this form waits for the card's answer.
          </p>
        </Dialog>
      )}
    </>
  );
}

type Currency = NonNullable<components['schemas']['InvoiceCreate']['currency']>;

/** "New invoice": a draft with one line (a description and an amount), opened once created. */
export function NewDraftInvoice({ customerId, currency }: { customerId: string; currency: Currency }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [description, setDescription] = useState('');
  const [amount, setAmount] = useState('');
  const keys = useIdempotencyKeys();
  const create = useMutation({
    mutationFn: () => {
      // An amount that is not money is sent as null: the API's refusal names the field.
      const body = { customer: customerId, currency, lines: [{ description, amount: centsFromText(amount) ?? NaN }] };
      return api.POST('/invoices', { body, params: { header: { 'Idempotency-Key': keys.keyFor(body) } } });
    },
    onSuccess: (invoice) => {
      keys.done();
      void queryClient.invalidateQueries({ queryKey: ['invoices'] });
      navigate(`/invoices/${invoice.id}`);
    },
  });
  return (
    <>
      <button type="button" className="secondary" onClick={() => (create.reset(), setOpen(true))}>
        New invoice
      </button>
      {open && (
        <Dialog
          title="New draft invoice"
          submit="Create draft"
          action={create}
          onSubmit={() => create.mutate()}
          onClose={() => setOpen(false)}
        >
          <Field
            label="Description"
            param="lines.0.description"
            value={description}
            onValue={setDescription}
            required
          />
          <Field label={`Amount (${currency})`} param="lines.0.amount" value={amount} onValue={setAmount} required />
          <p className="muted small">A draft can be edited, finalized and charged from its page.</p>
        </Dialog>
      )}
    </>
  );
}
