import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type CatalogPrice, type Invoice, type Page, type Subscription } from '../api';
import { centsFromText } from '../format';
import { priceLabel } from '../names';
import { navigate } from '../router';
import { FormDialog, TextField, useIdempotencyKeys } from './common';

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
    mutationFn: () => {
      const body = {
        customer: customerId,
        items: [{ price, quantity: wholeNumber(quantity) ?? quantity }],
        trial_days: wholeNumber(trialDays) ?? trialDays,
        start_date: startDate,
      };
      return api<Subscription>('POST', '/subscriptions', body, { idempotencyKey: keys.keyFor(body) });
    },
    onSuccess: (subscription) => {
      keys.done();
      void queryClient.invalidateQueries({ queryKey: ['subscriptions'] });
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
          onSubmit={() => create.mutate()}
          onClose={() => setOpen(false)}
        >
          <label className="field">
            <span>Price</span>
            <select value={price} onChange={(event) => setPrice(event.target.value)} required>
              <option value="">{prices.isPending ? 'Loading prices…' : 'Choose a recurring price'}</option>
              {prices.data?.data.map((option) => (
                <option key={option.id} value={option.id}>
                  {priceLabel(option)}
                </option>
              ))}
            </select>
          </label>
          <TextField label="Quantity" value={quantity} onChange={setQuantity} required />
          <TextField label="Trial days" value={trialDays} onChange={setTrialDays} required />
          <p className="muted small">
            It starts now; without a trial the first invoice is made and charged to the customer's default card at once.
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
