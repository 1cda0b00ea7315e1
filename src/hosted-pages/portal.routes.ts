import express, { type Request, type Response } from 'express';
import type { BillingPortalSession } from '../generated/prisma/client';
import type { AppDeps } from '../http/app-deps';
import { ApiError } from '../http/errors';
import { fromOrigin } from '../lib/events';
import { PORTAL_PATH, findPortalSession } from '../billing-portal';
import type { PaymentMethodObject } from '../payments';
import type { InvoiceObject } from '../invoices';
import { hostedCardEntry } from '../gateway-settings';
import {
  addCard,
  cancelAtPeriodEnd,
  cardToRemove,
  keepSubscription,
  makeDefaultCard,
  pauseOwnSubscription,
  portalAccount,
  readPortal,
  removeCard,
  resumeOwnSubscription,
  subscriptionToCancel,
  type PortalCustomer,
  type PortalSubscription,
} from '../use-cases';
import { HostedCardRefusedError } from '../use-cases';
import type { FieldErrors } from './card-form';
import { cardEntryFields, cardFormAttributes, cardRefusal, parseCardEntry } from './card-entry';
import { longDate, money, samePagePath, shortDate } from './format';
import {
  csrfToken,
  csrfValid,
  formBody,
  html,
  type Html,
  liveToken,
  sendNotice,
  sendPage,
  sendUnknownLink,
} from './page';

const DONE: Record<string, string> = {
  canceled: 'Your subscription will end at the end of the current period.',
  kept: 'Your subscription will continue: it renews as before.',
  paused: 'Your subscription is paused.',
  resumed: 'Your subscription is active again.',
  card_added: 'Your card was saved.',
  default_set: 'Your default card was changed.',
  card_removed: 'The card was removed.',
};

interface Portal {
  session: BillingPortalSession;
  /** The token's hash: the key of the page's CSRF tokens. */
  hash: string;
  base: string;
  /** Whose portal it is: what every action of the use case is checked against. */
  who: PortalCustomer;
}

async function livePortal(deps: AppDeps, req: Request, res: Response): Promise<Portal | undefined> {
  const live = await liveToken(req, res, (token) => findPortalSession(deps.prisma, token));
  if (!live) return undefined;
  const { accountId, customerId } = live.record;
  return {
    session: live.record,
    hash: live.hash,
    base: `${PORTAL_PATH}/${live.token}`,
    who: { accountId, customerId },
  };
}

/** A button posting one action of the portal (its CSRF token included). */
function actionButton(portal: Portal, action: string, label: string, style = 'secondary'): Html {
  return html`<form class="inline-form" method="post" action="${portal.base}/${action}">
    <input type="hidden" name="csrf" value="${csrfToken(portal.hash, 'portal')}" />
    <button type="submit" class="${style}">${label}</button>
  </form>`;
}

/**
 * The CSRF purpose of an action that is asked first (cancel, remove a card): only its confirmation
 * page carries it, bound to the action and its object, so the portal page's own token cannot do it.
 */
const confirmedPurpose = (action: string) => `portal-confirm:${action}`;

/** A button opening an action's confirmation page (a GET: nothing changes until that page's form is sent). */
function askFirstButton(portal: Portal, action: string, label: string): Html {
  return html`<form class="inline-form" method="get" action="${portal.base}/${action}">
    <button type="submit" class="danger">${label}</button>
  </form>`;
}

/** An action's path with its object's id, as its confirmation page posts it (`subscriptions/sub_1/cancel`). */
function actionPath(path: string, req: Request): string {
  return path.replace(/:(\w+)/g, (_match, name: string) => String(req.params[name] ?? ''));
}

const INTERVALS: Record<string, string> = { day: 'day', week: 'week', month: 'month', year: 'year' };

/** Each item of the subscription as the customer reads it: "Plan: $49.00 x 1 every month". */
function itemLines({ subscription, itemNames }: PortalSubscription): string[] {
  return subscription.items.data.map((item, index) => {
    const recurring = item.price.recurring;
    const every = recurring
      ? `every ${recurring.interval_count > 1 ? `${recurring.interval_count} ` : ''}${INTERVALS[recurring.interval]}${recurring.interval_count > 1 ? 's' : ''}`
      : '';
    return `${itemNames[index]}: ${money(item.price.unit_amount, subscription.currency)} x ${item.quantity} ${every}`;
  });
}

function subscriptionItem(portal: Portal, shown: PortalSubscription): Html {
  const { subscription } = shown;
  const when = subscription.cancel_at_period_end
    ? `Ends on ${longDate(subscription.current_period_end)}`
    : subscription.status === 'paused'
      ? 'Paused'
      : subscription.current_period_end
        ? `Renews on ${longDate(subscription.current_period_end)}`
        : '';
  const path = `subscriptions/${subscription.id}`;
  return html`<li>
    <strong>${itemLines(shown).join('; ')}</strong><br />
    <span class="status">${subscription.status.replace('_', ' ')}</span> <span class="muted">${when}</span><br />
    ${shown.cancellable ? askFirstButton(portal, `${path}/cancel`, 'Cancel at period end') : html``}
    ${shown.keepable ? actionButton(portal, `${path}/keep`, 'Keep my subscription') : html``}
    ${shown.pausable ? actionButton(portal, `${path}/pause`, 'Pause') : html``}
    ${shown.resumable ? actionButton(portal, `${path}/resume`, 'Resume') : html``}
  </li>`;
}

function invoiceRow(invoice: InvoiceObject): Html {
  const verb = invoice.status === 'open' ? 'Pay' : 'View';
  const page = invoice.hosted_invoice_url && samePagePath(invoice.hosted_invoice_url);
  const link = page
    ? html`<a href="${page}" aria-label="${verb} invoice ${invoice.number ?? ''}">${verb}</a>
        <a href="${page}/pdf" aria-label="PDF of invoice ${invoice.number ?? ''}">PDF</a>`
    : html``;
  return html`<tr>
    <td>${invoice.number ?? ''}</td>
    <td>${shortDate(invoice.status_transitions.finalized_at)}</td>
    <td class="num">${money(invoice.total, invoice.currency)}</td>
    <td>${invoice.status === 'open' ? 'Due' : invoice.status}</td>
    <td>${link}</td>
  </tr>`;
}

function methodLabel(method: PaymentMethodObject): string {
  const card = method.card;
  return card
    ? `${card.brand ?? 'Card'} ending ${card.last4 ?? ''}`
    : `Bank account ending ${method.us_bank_account?.last4 ?? ''}`;
}

function cardItem(portal: Portal, method: PaymentMethodObject, isDefault: boolean): Html {
  const label = methodLabel(method);
  return html`<li>
    <strong>${label}</strong> ${isDefault ? html`<span class="status status-paid">Default</span>` : html``}<br />
    ${isDefault ? html`` : actionButton(portal, `payment-methods/${method.id}/default`, 'Make default')}
    ${askFirstButton(portal, `payment-methods/${method.id}/remove`, 'Remove')}
  </li>`;
}

async function renderPortal(
  deps: AppDeps,
  res: Response,
  status: number,
  portal: Portal,
  notice: { ok?: string; error?: string } = {},
  cardErrors: FieldErrors = {},
): Promise<void> {
  const { account, customer, subscriptions, invoices: finalized, paymentMethods } = await readPortal(deps, portal.who);
  const items = subscriptions.map((shown) => subscriptionItem(portal, shown));
  const entry = await hostedCardEntry(deps.prisma, portal.who.accountId);
  sendPage(res, status, {
    stripeCard: entry.kind === 'stripe',
    title: `Billing: ${account?.name ?? ''}`,
    merchant: account?.name,
    brandColor: account?.brandColor,
    body: html`<p><a href="${portal.session.returnUrl}">Back to ${account?.name ?? 'the site'}</a></p>
      <h1>Your billing</h1>
      <p class="muted">${customer.name} ${customer.email ? `(${customer.email})` : ''}</p>
      ${notice.ok ? html`<div class="notice notice-ok" role="status">${notice.ok}</div>` : html``}
      ${notice.error ? html`<div class="notice notice-error" role="alert">${notice.error}</div>` : html``}
      <section class="card" aria-labelledby="subs-title">
        <h2 id="subs-title">Subscriptions</h2>
        ${
          items.length > 0
            ? html`<ul class="plain">
                ${items}
              </ul>`
            : html`<p class="muted">No current subscription.</p>`
        }
      </section>
      <section class="card" aria-labelledby="invoices-title">
        <h2 id="invoices-title">Invoices</h2>
        ${
          finalized.length > 0
            ? html`<div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Number</th>
                      <th scope="col">Date</th>
                      <th scope="col" class="num">Total</th>
                      <th scope="col">Status</th>
                      <th scope="col">Page</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${finalized.map(invoiceRow)}
                  </tbody>
                </table>
              </div>`
            : html`<p class="muted">No invoice yet.</p>`
        }
      </section>
      <section class="card" aria-labelledby="cards-title">
        <h2 id="cards-title">Payment methods</h2>
        ${
          paymentMethods.length > 0
            ? html`<ul class="plain">
                ${paymentMethods.map((method, index) => cardItem(portal, method, index === 0))}
              </ul>`
            : html`<p class="muted">No card saved.</p>`
        }
        <h3>Add a card</h3>
        ${
          entry.kind === 'none'
            ? cardEntryFields('card', entry, {}, cardErrors)
            : html`<form method="post" action="${portal.base}/payment-methods" novalidate${cardFormAttributes(entry)}>
                <input type="hidden" name="csrf" value="${csrfToken(portal.hash, 'portal')}" />
                ${cardEntryFields('card', entry, {}, cardErrors)}
                <label class="check"
                  ><input type="checkbox" name="default" value="yes" /> Make it my default card</label
                >
                <button type="submit">Save card</button>
              </form>`
        }
      </section>`,
  });
}

/** What a confirmation page asks: a question, what follows, and the button that does it. */
interface Confirmation {
  title: string;
  lines: string[];
  button: string;
}

/**
 * The page that asks before an action that is hard to take back (docs/api.md "Hosted pages"): its
 * form posts the action with a CSRF token of its own, "Go back" returns to the portal unchanged.
 */
async function renderConfirmation(
  deps: AppDeps,
  res: Response,
  portal: Portal,
  action: string,
  confirmation: Confirmation,
): Promise<void> {
  const account = await portalAccount(deps, portal.who);
  sendPage(res, 200, {
    title: `${account?.name ?? ''}: ${confirmation.title}`,
    merchant: account?.name,
    brandColor: account?.brandColor,
    body: html`<section class="card" aria-labelledby="confirm-title">
      <h1 id="confirm-title">${confirmation.title}</h1>
      ${confirmation.lines.map((line) => html`<p>${line}</p>`)}
      <form method="post" action="${portal.base}/${action}">
        <input type="hidden" name="csrf" value="${csrfToken(portal.hash, confirmedPurpose(action))}" />
        <button type="submit" class="danger">${confirmation.button}</button>
      </form>
      <p><a href="${portal.base}">Go back</a></p>
    </section>`,
  });
}

/** One portal route: its router, the service's dependencies, the portal's base route and the action's path. */
interface PortalRoute {
  router: express.Router;
  deps: AppDeps;
  route: string;
  path: string;
}

/**
 * An action's post: the session, its CSRF token (the portal page's, or with `askedFirst` its
 * confirmation page's, for this very action and object), then `act`; a refusal of the service shows
 * on the page.
 */
function routeAction(
  { router, deps, route, path }: PortalRoute,
  act: (portal: Portal, req: Request) => Promise<string | { errors: FieldErrors }>,
  { askedFirst = false } = {},
): void {
  router.post(`${route}/${path}`, formBody, async (req, res) => {
    res.locals.route = `${PORTAL_PATH}/{token}/${path.replace(/:(\w+)/g, '{$1}')}`;
    const portal = await livePortal(deps, req, res);
    if (!portal) return;
    const purpose = askedFirst ? confirmedPurpose(actionPath(path, req)) : 'portal';
    if (!csrfValid(req, portal.hash, purpose)) {
      return sendNotice(res, 403, 'This form has expired', 'Reload the page and try again.');
    }
    try {
      // Every event the action raises says the customer asked for it on the portal (docs/decisions.md §38).
      const outcome = await fromOrigin('customer_portal', () => act(portal, req));
      if (typeof outcome !== 'string') return await renderPortal(deps, res, 400, portal, {}, outcome.errors);
      res.redirect(303, `${portal.base}?done=${outcome}`);
    } catch (error) {
      if (error instanceof HostedCardRefusedError) {
        const refusal = cardRefusal(error);
        return await renderPortal(deps, res, refusal.status, portal, {}, refusal.errors);
      }
      if (!(error instanceof ApiError) || error.status >= 500) throw error;
      if (error.status === 404) return sendUnknownLink(res);
      await renderPortal(deps, res, error.status, portal, { error: error.message });
    }
  });
}

/**
 * An action's confirmation page (a GET, which changes nothing): the session, then `ask` words the
 * question; another customer's or account's object is a 404 page, and `ask` answers null when there
 * is nothing to confirm any more (already canceled, say): back to the portal.
 */
function routeConfirmation(
  { router, deps, route, path }: PortalRoute,
  ask: (portal: Portal, req: Request) => Promise<Confirmation | null>,
): void {
  router.get(`${route}/${path}`, async (req, res) => {
    res.locals.route = `${PORTAL_PATH}/{token}/${path.replace(/:(\w+)/g, '{$1}')}`;
    const portal = await livePortal(deps, req, res);
    if (!portal) return;
    let asked: Confirmation | null;
    try {
      asked = await ask(portal, req);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return sendUnknownLink(res);
      throw error;
    }
    if (!asked) return res.redirect(303, portal.base);
    await renderConfirmation(deps, res, portal, actionPath(path, req), asked);
  });
}

/**
 * The customer portal (docs/api.md "Hosted pages"): GET /hosted/portal/{token}, and one post per
 * action. The pages and forms are here; what a customer may do (their own subscriptions and cards only,
 * another's is a 404 page; pausing where the account allows it) is the use case's
 * (src/use-cases/customer-portal.ts).
 */
export function portalRouter(deps: AppDeps): express.Router {
  const router = express.Router();
  const route = `${PORTAL_PATH}/:token`;

  router.get(route, async (req, res) => {
    res.locals.route = `${PORTAL_PATH}/{token}`;
    const portal = await livePortal(deps, req, res);
    if (!portal) return;
    const done = typeof req.query.done === 'string' ? DONE[req.query.done] : undefined;
    await renderPortal(deps, res, 200, portal, { ok: done });
  });

  const action = (
    path: string,
    act: (portal: Portal, req: Request) => Promise<string | { errors: FieldErrors }>,
    options?: { askedFirst?: boolean },
  ) => routeAction({ router, deps, route, path }, act, options);
  const confirmation = (path: string, ask: (portal: Portal, req: Request) => Promise<Confirmation | null>) =>
    routeConfirmation({ router, deps, route, path }, ask);

  /** An action's path parameter (always there: the route names it). */
  const idOf = (req: Request) => String(req.params.id);

  confirmation('subscriptions/:id/cancel', async (portal, req) => {
    const shown = await subscriptionToCancel(deps, portal.who, idOf(req));
    if (!shown) return null;
    const end = shown.subscription.current_period_end;
    return {
      title: 'Cancel your subscription?',
      lines: [
        itemLines(shown).join('; '),
        end
          ? `It stays active until ${longDate(end)}, then ends: you will not be charged again.`
          : 'It ends at the end of its current period: you will not be charged again.',
        'You can change your mind until then: "Keep my subscription" in your billing page undoes it.',
      ],
      button: 'Cancel subscription',
    };
  });
  action(
    'subscriptions/:id/cancel',
    async (portal, req) => {
      await cancelAtPeriodEnd(deps, portal.who, idOf(req));
      return 'canceled';
    },
    { askedFirst: true },
  );
  action('subscriptions/:id/keep', async (portal, req) => {
    await keepSubscription(deps, portal.who, idOf(req));
    return 'kept';
  });
  action('subscriptions/:id/pause', async (portal, req) => {
    await pauseOwnSubscription(deps, portal.who, idOf(req));
    return 'paused';
  });
  action('subscriptions/:id/resume', async (portal, req) => {
    await resumeOwnSubscription(deps, portal.who, idOf(req));
    return 'resumed';
  });
  action('payment-methods', async (portal, req) => {
    const entry = await hostedCardEntry(deps.prisma, portal.who.accountId);
    const card = parseCardEntry(entry, req.body ?? {}, portal.session.customerId);
    if (!card.ok) return { errors: card.errors };
    await addCard(deps, portal.who, card.card, req.body?.default === 'yes');
    return 'card_added';
  });
  action('payment-methods/:id/default', async (portal, req) => {
    await makeDefaultCard(deps, portal.who, idOf(req));
    return 'default_set';
  });
  confirmation('payment-methods/:id/remove', async (portal, req) => {
    const method = await cardToRemove(deps, portal.who, idOf(req));
    return {
      title: `Remove ${methodLabel(method)}?`,
      lines: [
        'It will no longer be charged for your subscriptions or invoices; a payment due later is charged to your default card, or waits for one you add.',
      ],
      button: 'Remove card',
    };
  });
  action(
    'payment-methods/:id/remove',
    async (portal, req) => {
      await removeCard(deps, portal.who, idOf(req));
      return 'card_removed';
    },
    { askedFirst: true },
  );

  return router;
}
