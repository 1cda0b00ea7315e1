import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import type { CreditNote, Invoice } from '../api/types';
import { centsFromText, formatDateTime, formatMoney, statusLabel } from '../components/format';
import { AmountField, StatusBadge, type Outcome } from '../components/common';
import { Dialog } from '../components/dialogs';
import { Choices, SelectField, useIdempotencyKeys } from '../components/form';
import { Table } from '../components/Table';
import { declineReason } from './outcomes';
import { invoiceName } from './Invoices';

/**
 * What an invoice can still give back (docs/decisions.md §22), as the API counts it: an open invoice, what
 * is left to pay; a paid one, what it collected (card and customer balance) less refunds and the credit
 * notes to the balance or outside, and by card at most what the card paid and was not refunded.
 */
export function creditableOf(invoice: Invoice, notes: CreditNote[]): { any: number; card: number } {
  if (invoice.status === 'open') return { any: Math.max(0, invoice.amount_remaining), card: 0 };
  if (invoice.status !== 'paid') return { any: 0, card: 0 };
  const besides = notes
    .filter(
      (note) => note.status === 'issued' && (note.refund_to === 'customer_balance' || note.refund_to === 'outside'),
    )
    .reduce((sum, note) => sum + note.amount, 0);
  const cardLeft = invoice.amount_paid - invoice.amount_refunded;
  const any = Math.max(
    0,
    invoice.amount_paid + Math.max(0, invoice.applied_balance) - invoice.amount_refunded - besides,
  );
  return { any, card: Math.max(0, Math.min(cardLeft, any)) };
}

const REASONS = ['order_change', 'duplicate', 'product_unsatisfactory', 'fraudulent'] as const;
const DESTINATIONS = [
  { value: 'card', label: 'Refund the card' },
  { value: 'customer_balance', label: "Credit the customer's balance" },
  { value: 'outside', label: 'Given back outside this service' },
] as const;

/** Where a credit note's money went, in a few words. */
function destination(note: CreditNote): string {
  if (note.type === 'pre_payment') return 'Off the amount due';
  return DESTINATIONS.find((option) => option.value === note.refund_to)?.label ?? '—';
}

/** The credit notes against the invoice, each with its PDF. */
export function CreditNotesTable({ notes }: { notes: CreditNote[] }) {
  return (
    <Table
      rows={notes}
      rowKey={(note) => note.id}
      caption="Credit notes"
      columns={[
        {
          header: 'Credit note',
          cell: (note) => (
            <>
              <a href={`/credit-notes/${encodeURIComponent(note.id)}/pdf`} download={`${note.number}.pdf`}>
                {note.number}
              </a>
              {note.status === 'void' && (
                <>
                  {' '}
                  <StatusBadge status="void" />
                </>
              )}
            </>
          ),
          note: (note) => note.memo,
        },
        { header: 'Amount', cell: (note) => formatMoney(note.amount, note.currency) },
        { header: 'Reason', cell: (note) => statusLabel(note.reason), wide: true },
        { header: 'Credit to', cell: destination },
        { header: 'Issued', cell: (note) => formatDateTime(note.created), wide: true },
      ]}
    />
  );
}

/** A credit note just issued, in words; one whose refund the gateway refused is void, and says why. */
async function creditNoteOutcome(note: CreditNote): Promise<Outcome> {
  const money = formatMoney(note.amount, note.currency);
  if (note.status !== 'void')
    return {
      tone: 'success',
      text: `Credit note ${note.number} issued. ${money}, ${destination(note).toLowerCase()}.`,
    };
  const refund = note.transaction
    ? await api.GET('/transactions/{id}', { params: { path: { id: note.transaction } } })
    : undefined;
  return {
    tone: 'failure',
    text: `Credit note ${note.number} is void: the refund of ${money} to the card was refused (${declineReason(refund)}). Nothing was given back.`,
  };
}

/**
 * The "Issue credit note" dialog: the whole of what is left or an amount, a reason and, on a paid
 * invoice, where the money goes. The API's refusal (400, 409) is shown in the dialog, which stays open.
 */
export function IssueCreditNote({
  invoice,
  notes,
  onClose,
  onIssued,
}: {
  invoice: Invoice;
  notes: CreditNote[];
  onClose: () => void;
  /** The credit note issued, in words: a refund to the card the gateway refused leaves it void, with the reason. */
  onIssued: (outcome: Outcome) => void;
}) {
  const queryClient = useQueryClient();
  const keys = useIdempotencyKeys();
  const paid = invoice.status === 'paid';
  const [whole, setWhole] = useState(true);
  const [amountText, setAmountText] = useState('');
  const [reason, setReason] = useState<(typeof REASONS)[number]>('order_change');
  const [refundTo, setRefundTo] = useState<(typeof DESTINATIONS)[number]['value']>('customer_balance');
  const creditable = creditableOf(invoice, notes);
  const left = paid && refundTo === 'card' ? creditable.card : creditable.any;
  const money = (cents: number) => formatMoney(cents, invoice.currency);
  const amount = whole ? left : centsFromText(amountText);
  const amountInvalid = !whole && amountText.trim() !== '' && amount === undefined;
  const issue = useMutation({
    mutationFn: async () => {
      const body = { invoice: invoice.id, amount, reason, ...(paid ? { refund_to: refundTo } : {}) };
      const note = await api.POST('/credit-notes', {
        body,
        params: { header: { 'Idempotency-Key': keys.keyFor(body) } },
      });
      return { note, outcome: await creditNoteOutcome(note) };
    },
    onSuccess: ({ outcome }) => {
      keys.done();
      void queryClient.invalidateQueries({ queryKey: ['invoice', invoice.id] });
      void queryClient.invalidateQueries({ queryKey: ['customer', invoice.customer] });
      void queryClient.invalidateQueries({ queryKey: ['invoices'] });
      onIssued(outcome);
    },
  });
  return (
    <Dialog
      title={`Issue a credit note for ${invoiceName(invoice)}`}
      message={
        paid
          ? `Up to ${money(left)} can still be given back${refundTo === 'card' ? ' to the card' : ''}.`
          : `The amount due (${money(left)} left) goes down by the credit.`
      }
      submit="Issue credit note"
      cancelLabel="Keep it as it is"
      action={issue}
      disabled={amountInvalid || amount === undefined}
      onSubmit={() => issue.mutate()}
      onClose={onClose}
    >
      <Choices
        legend="Credit"
        name="credit-size"
        options={[
          { value: 'whole', label: `All that is left (${money(left)})` },
          { value: 'amount', label: 'An amount' },
        ]}
        value={whole ? 'whole' : 'amount'}
        onValue={(size) => setWhole(size === 'whole')}
      />
      {!whole && (
        <AmountField
          label={`Amount in ${invoice.currency.toUpperCase()}, tax included`}
          value={amountText}
          onChange={setAmountText}
          invalid={amountInvalid}
        />
      )}
      <SelectField label="Reason" value={reason} onValue={(value) => setReason(value as typeof reason)}>
        {REASONS.map((value) => (
          <option key={value} value={value}>
            {statusLabel(value)}
          </option>
        ))}
      </SelectField>
      {paid && (
        <SelectField
          label="Where the money goes"
          value={refundTo}
          onValue={(value) => setRefundTo(value as typeof refundTo)}
        >
          {DESTINATIONS.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </SelectField>
      )}
    </Dialog>
  );
}
