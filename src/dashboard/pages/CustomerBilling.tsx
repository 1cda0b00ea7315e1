import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type CatalogPrice, type Invoice, type Page, type Subscription } from '../api';
import { centsFromText } from '../components/format';
import { priceLabel } from '../components/names';
import { navigate } from '../router';
import { flashOn } from '../components/flash';
import { FormDialog, paramError, TextField, useIdempotencyKeys } from './common';
import { settleNewSubscription } from './outcomes';

/** A whole number a person typed, or undefined (the API then names the field). */
const wholeNumber = (text: string) => (/^\s*\d+\s*$/.test(text) ? Number(text) : undefined);

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
      api<Page<CatalogPrice>>(
        'GET',
        `/prices?take=100&include=names&search=${encodeURIComponent('{"type":"recurring"}')}`,
      ),
    enabled: open,
  });
  const keys = useIdempotencyKeys();
  // The start date is taken when the dialog opens, so that sending the same form again is the same request.
  const [startDate, setStartDate] = useState(0);
  const create = useMutation({
    mutationFn: async () => {
      const body = {
        customer: customerId,
        items: [{ price, quantity: wholeNumber(quantity) ?? quantity }],
        trial_days: wholeNumber(trialDays) ?? trialDays,
        start_date: startDate,
      };
      const created = await api<Subscription>('POST', '/subscriptions', body, { idempotencyKey: keys.keyFor(body) });
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
        <FormDialog
          title="New subscription"
          submit="Create subscription"
          busy={create.isPending}
          error={create.error ?? prices.error}
          fieldParams={['items.0.quantity', 'trial_days']}
          onSubmit={() => create.mutate()}
          onClose={() => setOpen(false)}
        >
          <label className="field">
            <span>Price</span>
            <select aria-label="Price" value={price} onChange={(event) => setPrice(event.target.value)} required>
              <option value="">{prices.isPending ? 'Loading prices…' : 'Choose a recurring price'}</option>
              {prices.data?.data.map((option) => (
                <option key={option.id} value={option.id}>
                  {priceLabel(option)}
                </option>
              ))}
            </select>
          </label>
          <TextField
            label="Quantity"
            value={quantity}
            onChange={setQuantity}
            inputMode="numeric"
            error={paramError(create.error, 'items.0.quantity')}
            required
          />
          <TextField
            label="Trial days"
            value={trialDays}
            onChange={setTrialDays}
            inputMode="numeric"
            error={paramError(create.error, 'trial_days')}
            required
          />
          <p className="muted small">
            It starts now; without a trial the first invoice is made and charged to the customer's default card at once,
            and this form waits for the card's answer.
          </p>
        </FormDialog>
      )}
    </>
  );
}

/** "New invoice": a draft with one line (a description and an amount), opened once created. */
export function NewDraftInvoice({ customerId, currency }: { customerId: string; currency: string }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [description, setDescription] = useState('');
  const [amount, setAmount] = useState('');
  const keys = useIdempotencyKeys();
  const create = useMutation({
    mutationFn: () => {
      const body = {
        customer: customerId,
        currency,
        lines: [{ description, amount: centsFromText(amount) ?? amount }],
      };
      return api<Invoice>('POST', '/invoices', body, { idempotencyKey: keys.keyFor(body) });
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
        <FormDialog
          title="New draft invoice"
          submit="Create draft"
          busy={create.isPending}
          error={create.error}
          onSubmit={() => create.mutate()}
          onClose={() => setOpen(false)}
        >
          <TextField label="Description" value={description} onChange={setDescription} required />
          <TextField label={`Amount (${currency})`} value={amount} onChange={setAmount} required />
          <p className="muted small">A draft can be edited, finalized and charged from its page.</p>
        </FormDialog>
      )}
    </>
  );
}
