import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import { Dialog } from '../components/dialogs';
import type { Outcome } from '../components/feedback';
import { Check, Field, numberOf, useIdempotencyKeys } from '../components/form';

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
        type: 'card' as const,
        card: {
          number: fields.number,
          exp_month: numberOf(fields.expMonth),
          exp_year: numberOf(fields.expYear),
          cvc: fields.cvc,
        },
        billing_details: { name: fields.name },
        customer: customerId,
      };
      const saved = await api.POST('/payment-methods', {
        body,
        params: { header: { 'Idempotency-Key': keys.keyFor(body) } },
      });
      if (!makeDefault) return saved;
      const attach = { customer: customerId, default: true };
      return api.POST('/payment-methods/{id}/attach', {
        body: attach,
        params: {
          path: { id: saved.id },
          header: { 'Idempotency-Key': defaultKeys.keyFor({ ...attach, method: saved.id }) },
        },
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
        <Dialog
          title="Add a card"
          submit="Add card"
          action={add}
          onSubmit={() => add.mutate()}
          onClose={() => setOpen(false)}
        >
          <Field
            label="Name on the card"
            param="billing_details.name"
            value={fields.name}
            onValue={set('name')}
            required
          />
          <Field
            label="Card number"
            param="card.number"
            value={fields.number}
            onValue={set('number')}
            inputMode="numeric"
            required
          />
          <div className="field-row">
            <Field
              label="Expiry month"
              param="card.exp_month"
              value={fields.expMonth}
              onValue={set('expMonth')}
              inputMode="numeric"
              required
            />
            <Field
              label="Expiry year"
              param="card.exp_year"
              value={fields.expYear}
              onValue={set('expYear')}
              inputMode="numeric"
              required
            />
            <Field label="CVC" param="card.cvc" value={fields.cvc} onValue={set('cvc')} inputMode="numeric" required />
          </div>
          <Check label="Make it the default payment method" checked={makeDefault} onChecked={setMakeDefault} />
          <p className="muted small">
            Test mode: 4242 4242 4242 4242 pays, 4000 0000 0000 0002 is declined, 4000 0000 0000 9995 has insufficient
            funds. The customer&rsquo;s first card becomes their default.
          </p>
        </Dialog>
      )}
    </>
  );
}
