import type { AppDeps } from '../http/app-deps';
import { ApiError } from '../http/errors';
import { readAccountProfile, type AccountProfile } from '../accounts';
import { readPortalSettings } from '../billing-portal';
import { findCustomer } from '../customers';
import { listInvoices } from '../invoices';
import { readProductName } from '../invoices';
import type { InvoiceObject } from '../invoices';
import type { PaymentMethodObject } from '../payments';
import {
  attachPaymentMethod,
  detachPaymentMethod,
  getCustomerPaymentMethod,
  listCustomerPaymentMethods,
} from '../payments';
import type { SubscriptionObject } from '../subscriptions';
import {
  cancelSubscription,
  getSubscription,
  listSubscriptions,
  pauseSubscription,
  resumeSubscription,
  subscriptionDepsOf,
  updateSubscription,
} from '../subscriptions';
import { saveHostedCard, type HostedCard } from './hosted-card';

/**
 * The customer portal's policy (docs/api.md "Hosted pages"): what its page shows, and the actions a customer
 * may take there. Every action names a subscription or card of the session's customer (another customer's or
 * account's is 404, as an unknown one) and goes through the service the API's route uses; pausing and resuming
 * only where the account's portal settings allow them. src/hosted-pages/portal.routes.ts reads the forms and
 * draws the pages.
 */

/** Whose portal: its session's account and customer. */
export interface PortalCustomer {
  accountId: string;
  customerId: string;
}

/** Statuses a customer may still cancel, keep or pause. */
const LIVE_STATUSES: readonly string[] = ['active', 'trialing', 'past_due'];

/** A subscription as the portal shows it: with the name of each item (its price's description, else its product's). */
export interface PortalSubscription {
  subscription: SubscriptionObject;
  itemNames: string[];
  /** It may be canceled at period end (it is live and not set to cancel). */
  cancellable: boolean;
  /** It is set to cancel at period end and may be kept. */
  keepable: boolean;
  pausable: boolean;
  resumable: boolean;
}

export interface PortalView {
  account: AccountProfile | undefined;
  customer: { name: string; email: string | null };
  /** The subscriptions not ended. */
  subscriptions: PortalSubscription[];
  /** The latest finalized invoices. */
  invoices: InvoiceObject[];
  /** The customer's cards, the default first. */
  paymentMethods: PaymentMethodObject[];
}

/** The account whose portal it is (its name and colour head every page). */
export function portalAccount(deps: AppDeps, who: PortalCustomer): Promise<AccountProfile | undefined> {
  return readAccountProfile(deps.prisma, who.accountId);
}

/** What the portal's page shows. */
export async function readPortal(deps: AppDeps, who: PortalCustomer): Promise<PortalView> {
  const { accountId, customerId } = who;
  const [account, customer, subscriptions, invoices, methods, settings] = await Promise.all([
    readAccountProfile(deps.prisma, accountId),
    findCustomer(deps.prisma, accountId, customerId),
    listSubscriptions(deps.prisma, accountId, { customer: customerId, page: 1, take: 100 }),
    listInvoices(deps.prisma, accountId, { customer: customerId, page: 1, take: 24 }),
    listCustomerPaymentMethods(deps.prisma, accountId, customerId, { page: 1, take: 100 }),
    readPortalSettings(deps.prisma, accountId),
  ]);
  const current = subscriptions.data.filter((subscription) => !['canceled', 'expired'].includes(subscription.status));
  return {
    account,
    customer,
    subscriptions: await Promise.all(
      current.map((subscription) => portalSubscription(deps, who, subscription, settings.pauseResume)),
    ),
    invoices: invoices.data.filter((invoice) => invoice.status !== 'draft'),
    paymentMethods: methods.data,
  };
}

async function portalSubscription(
  deps: AppDeps,
  who: PortalCustomer,
  subscription: SubscriptionObject,
  pauseResume: boolean,
): Promise<PortalSubscription> {
  const live = LIVE_STATUSES.includes(subscription.status);
  return {
    subscription,
    itemNames: await itemNames(deps, who, subscription),
    cancellable: live && !subscription.cancel_at_period_end,
    keepable: live && subscription.cancel_at_period_end,
    pausable: pauseResume && live && !subscription.cancel_at_period_end,
    resumable: pauseResume && subscription.status === 'paused',
  };
}

function itemNames(deps: AppDeps, who: PortalCustomer, subscription: SubscriptionObject): Promise<string[]> {
  return Promise.all(
    subscription.items.data.map(
      async (item) =>
        item.price.description ??
        (await readProductName(deps.prisma, who.accountId, item.price.product))?.name ??
        'Plan',
    ),
  );
}

/** The session customer's subscription, or 404 (another customer's or account's). */
async function ownSubscription(deps: AppDeps, who: PortalCustomer, id: string): Promise<SubscriptionObject> {
  const subscription = await getSubscription(deps.prisma, who.accountId, id);
  if (subscription.customer !== who.customerId)
    throw new ApiError('not_found', 'resource_missing', 'No such subscription');
  return subscription;
}

/** The session customer's card, or 404. */
function ownPaymentMethod(deps: AppDeps, who: PortalCustomer, id: string): Promise<PaymentMethodObject> {
  return getCustomerPaymentMethod(deps.prisma, who.accountId, who.customerId, id);
}

/** The subscription its cancellation's confirmation page asks about; null when there is nothing to cancel any more. */
export async function subscriptionToCancel(
  deps: AppDeps,
  who: PortalCustomer,
  id: string,
): Promise<PortalSubscription | null> {
  const subscription = await ownSubscription(deps, who, id);
  const shown = await portalSubscription(deps, who, subscription, false);
  return shown.cancellable ? shown : null;
}

/** Canceled at the end of its period (the API's DELETE with at_period_end). */
export async function cancelAtPeriodEnd(deps: AppDeps, who: PortalCustomer, id: string): Promise<void> {
  const subscription = await ownSubscription(deps, who, id);
  await cancelSubscription(subscriptionDepsOf(deps), who.accountId, subscription.id, true);
}

/** The cancellation the period's end would make, withdrawn (the API's PATCH cancel_at_period_end=false). */
export async function keepSubscription(deps: AppDeps, who: PortalCustomer, id: string): Promise<void> {
  const subscription = await ownSubscription(deps, who, id);
  await updateSubscription(subscriptionDepsOf(deps), who.accountId, subscription.id, { cancel_at_period_end: false });
}

async function assertPauseResumeOffered(deps: AppDeps, who: PortalCustomer, verb: string): Promise<void> {
  if (!(await readPortalSettings(deps.prisma, who.accountId)).pauseResume)
    throw new ApiError('permission_error', 'portal_pause_disabled', `${verb} is not offered here.`);
}

export async function pauseOwnSubscription(deps: AppDeps, who: PortalCustomer, id: string): Promise<void> {
  const subscription = await ownSubscription(deps, who, id);
  await assertPauseResumeOffered(deps, who, 'Pausing');
  await pauseSubscription(subscriptionDepsOf(deps), who.accountId, subscription.id);
}

export async function resumeOwnSubscription(deps: AppDeps, who: PortalCustomer, id: string): Promise<void> {
  const subscription = await ownSubscription(deps, who, id);
  await assertPauseResumeOffered(deps, who, 'Resuming');
  await resumeSubscription(subscriptionDepsOf(deps), who.accountId, subscription.id);
}

/** A card the customer entered (typed, or made by the processor's element), saved; made their default when they asked. */
export async function addCard(
  deps: AppDeps,
  who: PortalCustomer,
  card: HostedCard,
  makeDefault: boolean,
): Promise<void> {
  const method = await saveHostedCard(deps.prisma, deps.gateways, who.accountId, who.customerId, card);
  if (makeDefault)
    await attachPaymentMethod(deps.prisma, deps.gateways, who.accountId, method.id, {
      customer: who.customerId,
      default: true,
    });
}

export async function makeDefaultCard(deps: AppDeps, who: PortalCustomer, id: string): Promise<void> {
  const method = await ownPaymentMethod(deps, who, id);
  await attachPaymentMethod(deps.prisma, deps.gateways, who.accountId, method.id, {
    customer: who.customerId,
    default: true,
  });
}

/** The card its removal's confirmation page asks about. */
export function cardToRemove(deps: AppDeps, who: PortalCustomer, id: string): Promise<PaymentMethodObject> {
  return ownPaymentMethod(deps, who, id);
}

export async function removeCard(deps: AppDeps, who: PortalCustomer, id: string): Promise<void> {
  const method = await ownPaymentMethod(deps, who, id);
  await detachPaymentMethod(deps.prisma, deps.gateways, who.accountId, method.id);
}
