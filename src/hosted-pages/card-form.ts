import crypto from 'node:crypto';
import { z } from 'zod';
import { createPaymentMethodBody, type CreatePaymentMethodInput } from '../payments';
import { escapeHtml, html, Html } from './page';

/**
 * The card form of the pages (pay an invoice, add a card, checkout). Its fields carry the standard
 * `autocomplete` values so browsers and password managers fill them. The number and CVC go no further
 * than createPaymentMethod (brand, last4, fingerprint are kept: docs/decisions.md §5); a page that
 * shows the form again after an error never fills them back in (the name and expiry it may).
 */
export interface CardFormValues {
  name?: string;
  exp?: string;
}

/** `card`: the processor's element (its own fields report their errors in it; the server's go beside it). */
export type FieldErrors = Partial<Record<'name' | 'number' | 'exp' | 'cvc' | 'card' | 'form', string>>;

/** A fresh key for one rendering of a form: a double click sends it twice, a second tab has its own. */
export function newFormKey(): string {
  return crypto.randomBytes(18).toString('base64url');
}

export const formKey = z.string().regex(/^[A-Za-z0-9_-]{24}$/, 'must be the form key the page gave');

const fieldError = (errors: FieldErrors, field: keyof FieldErrors, id: string): Html =>
  errors[field] ? html`<p class="field-error" id="${id}-error">${errors[field]}</p>` : html``;

/** The attributes tying a field to its error; ids are made from constant prefixes, never from input. */
const describedBy = (errors: FieldErrors, field: keyof FieldErrors, id: string): Html =>
  errors[field] ? new Html(` aria-invalid="true" aria-describedby="${escapeHtml(id)}-error"`) : html``;

interface FieldSpec {
  field: 'name' | 'number' | 'exp' | 'cvc';
  label: string;
  autocomplete: string;
  maxlength: number;
  placeholder?: string;
  value?: string;
}

/** One labelled input with its error tied to it (aria-describedby). */
function cardInput(prefix: string, spec: FieldSpec, errors: FieldErrors): Html {
  const id = `${prefix}-${spec.field}`;
  const numeric = spec.field === 'name' ? html`` : html` inputmode="numeric"`;
  return html`<label for="${id}">${spec.label}</label>
    <input
      id="${id}"
      name="${spec.field}"
      autocomplete="${spec.autocomplete}"
      ${numeric}
      required
      maxlength="${spec.maxlength}"
      placeholder="${spec.placeholder ?? ''}"
      value="${spec.value ?? ''}"
      ${describedBy(errors, spec.field, id)}
    />
    ${fieldError(errors, spec.field, id)}`;
}

/** The name on the card, also asked beside the processor's element (it goes to the processor with the card). */
export function cardNameField(prefix: string, values: CardFormValues, errors: FieldErrors): Html {
  return cardInput(
    prefix,
    { field: 'name', label: 'Name on card', autocomplete: 'cc-name', maxlength: 255, value: values.name },
    errors,
  );
}

/** The card fields (with a name on card), to be placed inside a form. */
export function cardFields(prefix: string, values: CardFormValues, errors: FieldErrors): Html {
  const input = (spec: FieldSpec) => cardInput(prefix, spec, errors);
  return html`${cardNameField(prefix, values, errors)}
    ${input({ field: 'number', label: 'Card number', autocomplete: 'cc-number', maxlength: 23, placeholder: '1234 1234 1234 1234' })}
    <div class="row">
      <div>
        ${input({ field: 'exp', label: 'Expiry (MM/YY)', autocomplete: 'cc-exp', maxlength: 7, placeholder: 'MM/YY', value: values.exp })}
      </div>
      <div>
        ${input({ field: 'cvc', label: 'Security code', autocomplete: 'cc-csc', maxlength: 4, placeholder: 'CVC' })}
      </div>
    </div>`;
}

/** Each field read alone, so that every wrong field is named at once. */
const FORM_FIELDS = {
  name: z.string().trim().min(1, 'Enter the name on the card.').max(255, 'The name is too long.'),
  number: z.string().max(40, 'This card number is not valid.'),
  exp: z
    .string()
    .regex(/^\s*\d{1,2}\s*\/\s*(\d{2}|\d{4})\s*$/, 'Enter the expiry as MM/YY.')
    .transform((text) => {
      const [month, year] = text.split('/').map((part) => Number(part.trim()));
      return { month: month!, year: year! < 100 ? 2000 + year! : year! };
    }),
  cvc: z
    .string()
    .trim()
    .regex(/^\d{3,4}$/, 'Enter the 3 or 4 digits of the security code.'),
};

/** Stand-ins for fields already refused, so the card's own checks still judge the others. */
const STAND_IN = { name: 'x', number: '4242424242424242', exp: { month: 12, year: 2099 }, cvc: '000' };

/** Form field of each card input the payment-method schema names. */
const FIELD_OF: Record<string, keyof FieldErrors> = {
  number: 'number',
  exp_month: 'exp',
  exp_year: 'exp',
  cvc: 'cvc',
  name: 'name',
};

const MESSAGES: Partial<Record<keyof FieldErrors, string>> = {
  number: 'This card number is not valid.',
  exp: 'This expiry date is not valid or has passed.',
  cvc: 'Enter the 3 or 4 digits of the security code.',
  name: 'Enter the name on the card.',
};

/**
 * The form's card as the API's `POST /payment-methods` body for `customer`, or the errors to show
 * beside each field (never echoing what was typed).
 */
export function parseCardForm(
  body: Record<string, unknown>,
  customer: string,
  billing: { email?: string; address?: Record<string, string> } = {},
): { ok: true; input: CreatePaymentMethodInput } | { ok: false; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const read = <K extends keyof typeof FORM_FIELDS>(field: K): z.output<(typeof FORM_FIELDS)[K]> => {
    const result = FORM_FIELDS[field].safeParse(body[field] ?? '');
    if (result.success) return result.data as z.output<(typeof FORM_FIELDS)[K]>;
    errors[field] = result.error.issues[0]!.message;
    return STAND_IN[field] as z.output<(typeof FORM_FIELDS)[K]>;
  };
  const form = { name: read('name'), number: read('number'), exp: read('exp'), cvc: read('cvc') };
  const parsed = createPaymentMethodBody.safeParse({
    type: 'card',
    card: { number: form.number, exp_month: form.exp.month, exp_year: form.exp.year, cvc: form.cvc },
    billing_details: { name: form.name, ...billing },
    customer,
  });
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const field = FIELD_OF[String(issue.path.at(-1))] ?? 'form';
      errors[field] ??= MESSAGES[field] ?? 'Check the details entered.';
    }
  }
  if (!parsed.success || Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, input: parsed.data };
}
