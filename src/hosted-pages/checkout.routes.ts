import express, { type Request, type Response } from 'express';
import { z } from 'zod';
import type { CheckoutSession } from '../generated/prisma/client';
import type { AppDeps } from '../http/app-deps';
import { findPrice } from '../catalog';
import { readProductName } from '../invoices';
import { readAccountProfile } from '../accounts';
import { assertCheckoutCompletable, CHECKOUT_PATH, findCheckoutByToken, type CheckoutItem } from '../checkout';
import { createCustomerBody, type CreateCustomerInput } from '../customers';
import { isRefusal } from '../http/errors';
import { completeCheckout } from '../use-cases';
import { HostedCardRefusedError } from '../use-cases';
import { hostedCardEntry, type HostedCardEntry } from '../gateway-settings';
import { formKey, newFormKey, type FieldErrors } from './card-form';
import { cardEntryFields, cardFormAttributes, cardRefusal, parseCardEntry } from './card-entry';
import { declineMessage } from './decline-messages';
import { money } from './format';
import { csrfToken, csrfValid, formBody, html, type Html, liveToken, sendNotice, sendPage } from './page';
import { fromOrigin } from '../lib/events';

interface LiveCheckout {
  session: CheckoutSession;
  hash: string;
  base: string;
}

async function liveCheckout(deps: AppDeps, req: Request, res: Response): Promise<LiveCheckout | undefined> {
  const live = await liveToken(req, res, async (token) => {
    const session = await findCheckoutByToken(deps.prisma, token);
    // A completed checkout stays readable after its 24 hours: its page says it is done.
    return session?.status === 'complete' ? { ...session, expiresAt: new Date(8.64e15) } : session;
  });
  return live && { session: live.record, hash: live.hash, base: `${CHECKOUT_PATH}/${live.token}` };
}

const buyerForm = z.object({
  buyer_name: z.string().trim().min(1, 'Enter your full name.').max(255, 'The name is too long.'),
  email: z.email('Enter a valid email address.').max(254, 'The email address is too long.'),
  line1: z.string().trim().min(1, 'Enter your street address.').max(200, 'The address is too long.'),
  city: z.string().trim().min(1, 'Enter your city.').max(200, 'The city is too long.'),
  postal_code: z.string().trim().min(1, 'Enter your postal code.').max(20, 'The postal code is too long.'),
  country: z
    .string()
    .trim()
    .regex(/^[A-Za-z]{2}$/, 'Enter the two-letter country code (for example US).')
    .transform((code) => code.toUpperCase()),
});

type BuyerErrors = Partial<Record<keyof z.input<typeof buyerForm>, string>>;

/** What a field the API's customer rules refuse (an invisible character, a country ISO 3166 does not know) asks. */
const BUYER_HINTS: Record<keyof BuyerErrors, string> = {
  buyer_name: 'Enter your full name without line breaks or invisible characters.',
  email: 'Enter a valid email address.',
  line1: 'Enter your street address without line breaks or invisible characters.',
  city: 'Enter your city without line breaks or invisible characters.',
  postal_code: 'Enter your postal code without line breaks or invisible characters.',
  country: 'Enter the two-letter country code (for example US).',
};

/**
 * The buyer's fields as the customer the checkout creates: the form's own checks (their messages), then the
 * API's customer rules (createCustomerBody), so that what the page accepts is what a customer may hold.
 */
function parseBuyer(
  body: Record<string, string>,
): { ok: true; customer: CreateCustomerInput } | { ok: false; errors: BuyerErrors } {
  const form = buyerForm.safeParse(
    Object.fromEntries(Object.keys(buyerForm.shape).map((name) => [name, String(body[name] ?? '')])),
  );
  const errors: BuyerErrors = {};
  if (!form.success) {
    for (const issue of form.error.issues) errors[issue.path[0] as keyof BuyerErrors] ??= issue.message;
    return { ok: false, errors };
  }
  const { buyer_name: name, email, ...address } = form.data;
  const customer = createCustomerBody.safeParse({ name, email, address: [address] });
  if (customer.success) return { ok: true, customer: customer.data };
  for (const issue of customer.error.issues) {
    const [field, , addressField] = issue.path;
    const key = (field === 'name' ? 'buyer_name' : field === 'address' ? addressField : field) as keyof BuyerErrors;
    errors[key] ??= BUYER_HINTS[key];
  }
  return { ok: false, errors };
}

interface Line {
  label: string;
  amount: number;
  currency: string;
  every: string;
}

async function linesOf(deps: AppDeps, session: CheckoutSession): Promise<Line[]> {
  return Promise.all(
    (session.items as unknown as CheckoutItem[]).map(async (item) => {
      const price = await findPrice(deps.prisma, session.accountId, item.price);
      const product = await readProductName(deps.prisma, session.accountId, price.product);
      const recurring = price.recurring;
      const every = recurring
        ? ` every ${recurring.interval_count > 1 ? `${recurring.interval_count} ${recurring.interval}s` : recurring.interval}`
        : '';
      return {
        label: `${price.description ?? product?.name ?? 'Item'}${item.quantity > 1 ? ` x ${item.quantity}` : ''}`,
        amount: price.unit_amount * item.quantity,
        currency: price.currency,
        every,
      };
    }),
  );
}

const field = (
  name: keyof BuyerErrors,
  label: string,
  autocomplete: string,
  errors: BuyerErrors,
  value: string | undefined,
  type = 'text',
): Html => {
  const id = `buyer-${name}`;
  const error = errors[name];
  return html`<label for="${id}">${label}</label>
    <input
      id="${id}"
      name="${name}"
      type="${type}"
      autocomplete="${autocomplete}"
      required
      value="${value ?? ''}"
      ${error ? html`aria-invalid="true" aria-describedby="${id}-error"` : html``}
    />
    ${error ? html`<p class="field-error" id="${id}-error">${error}</p>` : html``}`;
};

async function renderCheckout(
  deps: AppDeps,
  res: Response,
  status: number,
  checkout: LiveCheckout,
  extras: {
    notice?: string;
    buyerErrors?: BuyerErrors;
    cardErrors?: FieldErrors;
    values?: Record<string, string>;
  } = {},
): Promise<void> {
  const { session } = checkout;
  const [account, lines, entry] = await Promise.all([
    readAccountProfile(deps.prisma, session.accountId),
    linesOf(deps, session),
    hostedCardEntry(deps.prisma, session.accountId),
  ]);
  const currency = lines[0]?.currency ?? 'USD';
  const total = lines.reduce((sum, line) => sum + line.amount, 0);
  const values = extras.values ?? {};
  const buyerErrors = extras.buyerErrors ?? {};
  const subscribing = session.mode === 'subscription';
  const trial =
    subscribing && session.trialDays ? `${session.trialDays}-day free trial: nothing is charged today.` : '';
  sendPage(res, status, {
    title: `Checkout: ${account?.name ?? ''}`,
    merchant: account?.name,
    brandColor: account?.brandColor,
    formActions: [new URL(session.successUrl).origin],
    stripeCard: entry.kind === 'stripe',
    body: html`<h1>${subscribing ? 'Subscribe' : 'Pay'}</h1>
      ${extras.notice ? html`<div class="notice notice-error" role="alert">${extras.notice}</div>` : html``}
      <div class="grid">
        <section class="card" aria-labelledby="order-title">
          <h2 id="order-title">Your order</h2>
          <table>
            <tbody>
              ${lines.map(
                (line) =>
                  html`<tr>
                    <td>${line.label}</td>
                    <td class="num">${money(line.amount, line.currency)}${line.every}</td>
                  </tr>`,
              )}
            </tbody>
            <tfoot>
              <tr class="total">
                <td>${subscribing ? 'Total' : 'Total due today'}</td>
                <td class="num">${money(total, currency)}${lines[0]?.every ?? ''}</td>
              </tr>
            </tfoot>
          </table>
          ${trial ? html`<p class="muted">${trial}</p>` : html``}
          <p><a href="${session.cancelUrl}">Cancel and go back</a></p>
        </section>
        <section class="card" aria-labelledby="details-title">
          <h2 id="details-title">Your details</h2>
          <form method="post" action="${checkout.base}/complete" novalidate${cardFormAttributes(entry)}>
            <input type="hidden" name="csrf" value="${csrfToken(checkout.hash, 'checkout')}" />
            <input type="hidden" name="form_key" value="${newFormKey()}" />
            ${field('buyer_name', 'Full name', 'name', buyerErrors, values.buyer_name)}
            ${field('email', 'Email', 'email', buyerErrors, values.email, 'email')}
            ${field('line1', 'Street address', 'address-line1', buyerErrors, values.line1)}
            <div class="row">
              <div>${field('city', 'City', 'address-level2', buyerErrors, values.city)}</div>
              <div>${field('postal_code', 'Postal code', 'postal-code', buyerErrors, values.postal_code)}</div>
            </div>
            ${field('country', 'Country code', 'country', buyerErrors, values.country)}
            <h3>Card</h3>
            ${
              extras.values && entry.kind === 'form'
                ? html`<p class="muted" id="card-reentry">
                    For your security the card number and security code are never kept: enter them again.
                  </p>`
                : html``
            }
            ${cardEntryFields('card', entry, { name: values.name, exp: values.exp }, extras.cardErrors ?? {})}
            ${submitButton(entry, subscribing ? 'Subscribe' : `Pay ${money(total, currency)}`)}
          </form>
        </section>
      </div>`,
  });
}

/** No button where no card can be entered: the page says why instead (card-entry.ts). */
const submitButton = (entry: HostedCardEntry, label: string): Html =>
  entry.kind === 'none' ? html`` : html`<button type="submit">${label}</button>`;

/** The form's fields shown again after a refusal: all but the card's number and security code, never echoed. */
const KEPT_FIELDS = ['buyer_name', 'email', 'line1', 'city', 'postal_code', 'country', 'name', 'exp'] as const;

function enteredValues(body: Record<string, string>): Record<string, string> {
  return Object.fromEntries(KEPT_FIELDS.map((name) => [name, String(body[name] ?? '').slice(0, 255)]));
}

/** A checkout whose prices changed or went since it was made (nothing was written): back to the merchant. */
function sendChangedCheckout(res: Response, session: CheckoutSession): void {
  sendPage(res, 409, {
    title: 'This checkout can no longer be completed',
    body: html`<section class="card">
      <h1>This checkout can no longer be completed</h1>
      <p>The order changed after this page was made. Nothing was charged and nothing was saved.</p>
      <p><a href="${session.cancelUrl}">Go back and start again</a></p>
    </section>`,
  });
}

/**
 * Hosted checkout (docs/api.md "Hosted pages"): GET /hosted/checkout/{token} and its one post, which
 * completes it through src/use-cases/checkout-completion.ts and sends the browser to success_url.
 */
export function checkoutRouter(deps: AppDeps): express.Router {
  const router = express.Router();
  const route = `${CHECKOUT_PATH}/:token`;

  const done = (res: Response, session: CheckoutSession) =>
    sendPage(res, 200, {
      title: 'Checkout complete',
      body: html`<section class="card">
        <h1>Thank you</h1>
        <p>This checkout is complete.</p>
        <p><a href="${session.successUrl}">Continue</a></p>
      </section>`,
    });

  router.get(route, async (req, res) => {
    res.locals.route = `${CHECKOUT_PATH}/{token}`;
    const checkout = await liveCheckout(deps, req, res);
    if (!checkout) return;
    if (checkout.session.status === 'complete') return done(res, checkout.session);
    if (checkout.session.status === 'completing')
      return sendNotice(res, 200, 'Processing', 'Your order is being processed. Reload this page in a moment.');
    try {
      await assertCheckoutCompletable(deps.prisma, checkout.session);
    } catch (error) {
      if (isRefusal(error)) return sendChangedCheckout(res, checkout.session);
      throw error;
    }
    await renderCheckout(deps, res, 200, checkout);
  });

  router.post(`${route}/complete`, formBody, async (req, res) => {
    res.locals.route = `${CHECKOUT_PATH}/{token}/complete`;
    const checkout = await liveCheckout(deps, req, res);
    if (!checkout) return;
    const body = (req.body ?? {}) as Record<string, string>;
    if (!csrfValid(req, checkout.hash, 'checkout'))
      return sendNotice(res, 403, 'This form has expired', 'Reload the page and try again.');
    if (checkout.session.status !== 'open') return res.redirect(303, checkout.base);
    const key = formKey.safeParse(body.form_key);
    const buyer = parseBuyer(body);
    const entry = await hostedCardEntry(deps.prisma, checkout.session.accountId);
    const card = parseCardEntry(entry, body, checkout.session.customerId ?? 'cus_new', {
      email: buyer.ok ? buyer.customer.email : undefined,
    });
    if (!key.success || !buyer.ok || !card.ok) {
      return renderCheckout(deps, res, 400, checkout, {
        buyerErrors: buyer.ok ? {} : buyer.errors,
        cardErrors: card.ok ? {} : card.errors,
        values: enteredValues(body),
        notice: key.success ? undefined : 'Reload the page and try again.',
      });
    }
    let outcome;
    try {
      // Every event the checkout raises says it came from the hosted checkout page (docs/decisions.md §38).
      outcome = await fromOrigin('hosted_checkout', () =>
        completeCheckout(deps, checkout.session, buyer.customer, card.card, key.data),
      );
    } catch (error) {
      if (!(error instanceof HostedCardRefusedError)) throw error;
      const refusal = cardRefusal(error);
      return renderCheckout(deps, res, refusal.status, checkout, {
        cardErrors: refusal.errors,
        values: enteredValues(body),
      });
    }
    switch (outcome.kind) {
      case 'complete':
        return res.redirect(303, checkout.session.successUrl);
      case 'busy':
        return res.redirect(303, checkout.base);
      case 'refused':
        return sendChangedCheckout(res, checkout.session);
      case 'declined':
        // The form again with what the customer typed, but for the card's number and security code (402).
        return renderCheckout(deps, res, 402, checkout, {
          notice: `${declineMessage(outcome.failureCode)} Nothing was charged. Try another card.`,
          values: enteredValues(body),
        });
    }
  });

  return router;
}
