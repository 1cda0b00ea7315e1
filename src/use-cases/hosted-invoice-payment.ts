import type { AppDeps } from '../http/app-deps';
import { isRefusal } from '../http/errors';
import type { InvoiceObject } from '../invoices';
import { payInvoice } from '../invoices';
import { authenticateInvoicePayment, paymentAwaitingAuthentication } from '../invoices';
import { authenticationPlace, type AuthenticationPlace } from '../payments';
import { onInvoiceTime } from '../invoices';
import { fromOrigin } from '../lib/events';
import { attachPaymentMethod } from '../payments';
import { getSubscription, subscriptionDepsOf, updateSubscription } from '../subscriptions';
import { saveHostedCard, type HostedCard } from './hosted-card';

export interface HostedInvoicePayment {
  accountId: string;
  invoiceId: string;
  /** The invoice's customer. */
  customerId: string;
  /** The card, as the page's form read it: typed, or the id of the method the processor's element made. */
  card: HostedCard;
  /** The form's one-time key: a double click or a retried post is one attempt. */
  attemptKey: string;
  /** The customer asked that later payments use this card ("Use this card for future payments"). */
  useForFuture: boolean;
}

/** Subscription states with nothing left to charge: a new card is no matter to them. */
const ENDED = new Set(['canceled', 'expired']);

/**
 * Pays an invoice from its hosted page (docs/api.md "Hosted pages"): the card is saved for the customer (the
 * saved one when it is there already), and the invoice paid through the API's own payInvoice. When the customer
 * asked for it and the payment went through, the card becomes the one later payments use: the customer's default
 * and, where the invoice's subscription names a card of its own, the subscription's (the failed-payment email's
 * "Update payment method" opens this page). A declined card is kept but never made the default. Every event says
 * it came from the hosted invoice page (docs/decisions.md §38).
 */
export function payFromHostedInvoicePage(deps: AppDeps, payment: HostedInvoicePayment): Promise<InvoiceObject> {
  const { accountId, invoiceId } = payment;
  // A test-clock customer pays at the clock's time, as through the API (409 while the clock advances).
  return onInvoiceTime(deps.prisma, accountId, invoiceId, () => payOnPage(deps, payment));
}

function payOnPage(deps: AppDeps, payment: HostedInvoicePayment): Promise<InvoiceObject> {
  const { accountId, invoiceId } = payment;
  return fromOrigin('hosted_invoice_page', async () => {
    const method = await saveHostedCard(deps.prisma, deps.gateways, accountId, payment.customerId, payment.card);
    const invoice = await payInvoice(deps.prisma, deps.gateways, accountId, invoiceId, {
      paymentMethodId: method.id,
      attemptKey: payment.attemptKey,
    });
    if (payment.useForFuture && invoice.status === 'paid') {
      await attachPaymentMethod(deps.prisma, deps.gateways, accountId, method.id, {
        customer: payment.customerId,
        default: true,
      });
      if (invoice.subscription) await useOnSubscription(deps, accountId, invoice.subscription, method.id);
    }
    return invoice;
  });
}

/**
 * The subscription's own card replaced by `methodId`, through the API's update (the workflow records the change
 * and its event). A subscription with no card of its own charges the customer's default, set already; one that
 * has ended, or refuses the change meanwhile, keeps what it had: the invoice is paid either way.
 */
async function useOnSubscription(deps: AppDeps, accountId: string, subscriptionId: string, methodId: string) {
  const subscription = await getSubscription(deps.prisma, accountId, subscriptionId);
  const own = subscription.default_payment_method;
  if (!own || own === methodId || ENDED.has(subscription.status)) return;
  try {
    await updateSubscription(subscriptionDepsOf(deps), accountId, subscriptionId, {
      default_payment_method: methodId,
    });
  } catch (error) {
    if (!isRefusal(error)) throw error;
  }
}

/**
 * The customer authenticated the invoice's payment on its hosted page (3-D Secure: docs/api.md "Hosted pages"):
 * recorded at the invoice's time, as the page's own action (docs/decisions.md §38).
 */
export function authenticateOnHostedInvoicePage(deps: AppDeps, accountId: string, invoiceId: string) {
  return onInvoiceTime(deps.prisma, accountId, invoiceId, () =>
    fromOrigin('hosted_invoice_page', () =>
      authenticateInvoicePayment(deps.prisma, deps.gateways, accountId, invoiceId),
    ),
  );
}

/**
 * Where the customer authenticates the invoice's payment waiting for it, for its hosted page: a button of the page
 * (the simulator), or the processor's own page (Stripe's `next_action` URL); null when no payment waits.
 */
export async function hostedAuthentication(
  deps: AppDeps,
  accountId: string,
  invoiceId: string,
): Promise<{ place: AuthenticationPlace | null } | null> {
  const waiting = await paymentAwaitingAuthentication(deps.prisma, accountId, invoiceId);
  return waiting && { place: await authenticationPlace(deps.gateways, waiting) };
}
