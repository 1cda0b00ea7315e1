import { z } from 'zod';
import type { HostedCardEntry } from '../gateway-settings';
import type { HostedCard, HostedCardRefusedError } from '../use-cases';
import { cardFields, cardNameField, parseCardForm, type CardFormValues, type FieldErrors } from './card-form';
import { declineMessage, isDeclineCode } from './decline-messages';
import { html, type Html } from './page';

/**
 * How a page's card form collects the card, by the account's processor (docs/api.md, "Payment processors"):
 * the service's own fields (the simulated gateway), or Stripe's card element, whose script (stripe-card-script.ts)
 * has Stripe make the payment method in the browser and posts its id alone as `payment_method`. A page whose
 * account is on Stripe never renders or accepts a card number.
 */

/** What a payment method id made by Stripe.js looks like; anything else is refused before Stripe is asked. */
const processorMethodId = z.string().regex(/^pm_[A-Za-z0-9_]{1,250}$/);

/** The raw card fields of the service's form: posted to a page whose account is on Stripe, they are refused. */
const RAW_CARD_FIELDS = ['number', 'cvc', 'exp'] as const;

export const NO_CARD_ENTRY =
  'This merchant cannot take a new card on this page yet. Nothing was charged: contact them to pay.';

/** The attributes of the form tag: the publishable key the card script gives Stripe.js. */
export function cardFormAttributes(entry: HostedCardEntry): Html {
  return entry.kind === 'stripe' ? html` data-stripe-key="${entry.publishableKey}"` : html``;
}

/** The card's part of a form: the service's fields, or Stripe's element with the method id it will post. */
export function cardEntryFields(
  prefix: string,
  entry: HostedCardEntry,
  values: CardFormValues,
  errors: FieldErrors,
): Html {
  if (entry.kind === 'form') return cardFields(prefix, values, errors);
  if (entry.kind === 'none') return html`<p class="notice" role="status">${NO_CARD_ENTRY}</p>`;
  return html`${cardNameField(prefix, { name: values.name }, errors)}
    <p class="field-label" id="${prefix}-card-label">Card</p>
    <div id="card-element" class="card-element" role="group" aria-labelledby="${prefix}-card-label"></div>
    <p class="field-error" id="card-errors" role="alert">${errors.card ?? ''}</p>
    <input type="hidden" name="payment_method" value="" />`;
}

/**
 * The posted card for `customer`: the service's fields read as today, or Stripe's payment method id (a bad or
 * missing one, or raw card fields, are refused with the error to show beside the element).
 */
export function parseCardEntry(
  entry: HostedCardEntry,
  body: Record<string, unknown>,
  customer: string,
  billing: { email?: string } = {},
): { ok: true; card: HostedCard } | { ok: false; errors: FieldErrors } {
  if (entry.kind === 'form') {
    const typed = parseCardForm(body, customer, billing);
    return typed.ok ? { ok: true, card: { kind: 'typed', input: typed.input } } : typed;
  }
  if (entry.kind === 'none') return { ok: false, errors: { form: NO_CARD_ENTRY } };
  if (RAW_CARD_FIELDS.some((field) => body[field] !== undefined && body[field] !== '')) {
    return { ok: false, errors: { card: 'Card numbers are entered in the card field only. Reload the page.' } };
  }
  const id = processorMethodId.safeParse(body.payment_method);
  if (!id.success) {
    const missing = body.payment_method === undefined || body.payment_method === '';
    return {
      ok: false,
      errors: { card: missing ? 'Enter your card details.' : 'Your card could not be read. Enter it again.' },
    };
  }
  return { ok: true, card: { kind: 'processor', paymentMethodId: id.data } };
}

/** What the page says, and its status, when the processor would not attach the card. */
export function cardRefusal(error: HostedCardRefusedError): { status: number; errors: FieldErrors } {
  if (error.retryable)
    return {
      status: 502,
      errors: { card: 'The card processor did not answer. Nothing was charged: try again in a moment.' },
    };
  if (isDeclineCode(error.code))
    return { status: 402, errors: { card: `${declineMessage(error.code)} Nothing was charged. Try another card.` } };
  // Unknown to the processor, of the other mode, or not this customer's to use.
  return { status: 400, errors: { card: 'This card could not be read. Enter it again or use another card.' } };
}
