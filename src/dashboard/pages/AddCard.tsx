import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, type PaymentMethod } from '../api';
import { FormDialog, paramError, TextField, useIdempotencyKeys, type Outcome } from './common';

const FIELDS = ['billing_details.name', 'card.number', 'card.exp_month', 'card.exp_year', 'card.cvc'];

/** A whole number typed, or the text itself (the API then names the field). */
const numberOrText = (text: string) => (/^\s*\d+\s*$/.test(text) ? Number(text) : text);

/**
 * "Add card" on a customer's page: a card saved for the customer with the API's test-mode `POST /payment-methods
 * {customer}` (docs/api.md "Payment methods": the simulated gateway's test numbers), then, when asked, made the
 * default with `attach {default: true}`. Each request carries its Idempotency-Key: a double click or a retry
 * saves one card. The number and CVC go to the API only, which keeps neither; the form forgets them once sent.
 */
export function AddCard({ customerId, onAdded }: { customerId: string; onAdded: (outcome: Outcome) => void }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const empty = { name: '', number: '', expMonth: '', expYear: '', cvc: '' };
  const [fields, setFields] = useState(empty);
  const [makeDefault, setMakeDefault] = useState(false);
  const set = (name: keyof typeof empty) => (value: string) => setFields({ ...fields, [name]: value });
  const keys = useIdempotencyKeys();
  const defaultKeys = useIdempotencyKeys();
  const add = useMutation({
    mutationFn: async () => {
      const body = {
        type: 'card',
        card: {
          number: fields.number,
          exp_month: numberOrText(fields.expMonth),
          exp_year: numberOrText(fields.expYear),
          cvc: fields.cvc,
        },
        billing_details: { name: fields.name },
        customer: customerId,
      };
      const saved = await api<PaymentMethod>('POST', '/payment-methods', body, { idempotencyKey: keys.keyFor(body) });
      if (!makeDefault) return saved;
      const attach = { customer: customerId, default: true };
      return api<PaymentMethod>('POST', `/payment-methods/${encodeURIComponent(saved.id)}/attach`, attach, {
        idempotencyKey: defaultKeys.keyFor({ ...attach, method: saved.id }),
      });
    },
    onSuccess: (method) => {
      keys.done();
      defaultKeys.done();
      setFields(empty);
      setOpen(false);
      void queryClient.invalidateQueries({ queryKey: ['customer', customerId] });
      void queryClient.invalidateQueries({ queryKey: ['events'] });
      const card = `${method.card?.brand ?? 'Card'} ending ${method.card?.last4 ?? ''}`.trim();
      onAdded({
        tone: 'success',
        text: `${card[0]!.toUpperCase()}${card.slice(1)} added${makeDefault ? ' and made the default' : ''}.`,
      });
    },
  });
  const error = (param: string) => paramError(add.error, param);
  return (
    <>
      <button
        type="button"
        className="secondary"
        onClick={() => (add.reset(), setFields(empty), setMakeDefault(false), setOpen(true))}
      >
        Add card
      </button>
      {open && (
        <FormDialog
          title="Add a card"
          submit="Add card"
          busy={add.isPending}
          error={add.error}
          fieldParams={FIELDS}
          onSubmit={() => add.mutate()}
          onClose={() => setOpen(false)}
        >
          <TextField
            label="Name on the card"
            value={fields.name}
            onChange={set('name')}
            error={error('billing_details.name')}
            required
          />
          <TextField
            label="Card number"
            value={fields.number}
            onChange={set('number')}
            inputMode="numeric"
            error={error('card.number')}
            required
          />
          <div className="field-row">
            <TextField
              label="Expiry month"
              value={fields.expMonth}
              onChange={set('expMonth')}
              inputMode="numeric"
              error={error('card.exp_month')}
              required
            />
            <TextField
              label="Expiry year"
              value={fields.expYear}
              onChange={set('expYear')}
              inputMode="numeric"
              error={error('card.exp_year')}
              required
            />
            <TextField
              label="CVC"
              value={fields.cvc}
              onChange={set('cvc')}
              inputMode="numeric"
              error={error('card.cvc')}
              required
            />
          </div>
          <label className="check">
            <input type="checkbox" checked={makeDefault} onChange={(event) => setMakeDefault(event.target.checked)} />{' '}
            Make it the default payment method
          </label>
          <p className="muted small">
            Test mode: 4242 4242 4242 4242 pays, 4000 0000 0000 0002 is declined, 4000 0000 0000 9995 has insufficient
            funds. The customer&rsquo;s first card becomes their default.
          </p>
        </FormDialog>
      )}
    </>
  );
}
