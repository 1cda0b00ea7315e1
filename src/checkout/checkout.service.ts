import type { CheckoutSession } from '../generated/prisma/client';
import type { Db } from '../db/prisma';
import { badRequest, notFound } from '../http/errors';
import { findCustomer } from '../customers/customer.service';
import { findPrice } from '../catalog/price.service';
import type { PriceObject } from '../catalog/price.schemas';
import { withParam } from '../invoices/invoice.service';
import { newId } from '../lib/ids';
import { hashPageToken, newPageToken, publicUrl } from '../lib/page-tokens';
import { toUnixSeconds } from '../lib/time';
import type { CheckoutSessionObject, CreateCheckoutSessionInput } from './checkout.schemas';
import { findCheckout, findCheckoutByHash, insertCheckoutSession } from './checkout.records';

/** Path of the checkout page (src/hosted-pages/checkout.routes.ts). */
export const CHECKOUT_PATH = '/hosted/checkout';
/** A checkout expires 24 hours after it is made (docs/api.md "Hosted pages"). */
export const CHECKOUT_HOURS = 24;

export interface CheckoutItem {
  price: string;
  quantity: number;
}

export function toCheckoutObject(session: CheckoutSession, url: string | null = null): CheckoutSessionObject {
  const expired = session.status !== 'complete' && session.expiresAt.getTime() <= Date.now();
  return {
    id: session.id,
    object: 'checkout.session',
    mode: session.mode === 'payment' ? 'payment' : 'subscription',
    status: expired ? 'expired' : session.status === 'complete' ? 'complete' : 'open',
    customer: session.customerId,
    items: session.items as unknown as CheckoutItem[],
    trial_days: session.trialDays,
    success_url: session.successUrl,
    cancel_url: session.cancelUrl,
    url,
    subscription: session.subscriptionId,
    invoice: session.invoiceId,
    created: toUnixSeconds(session.createdAt),
    expires_at: toUnixSeconds(session.expiresAt),
  };
}

/**
 * POST /checkout/sessions: the prices must be the account's, all recurring (a subscription) or all
 * one-time (a payment), in one currency; the page does the rest.
 */
export async function createCheckoutSession(
  prisma: Db,
  accountId: string,
  input: CreateCheckoutSessionInput,
): Promise<CheckoutSessionObject> {
  if (input.customer) await withParam('customer', () => findCustomer(prisma, accountId, input.customer!));
  const prices: PriceObject[] = [];
  for (const [index, item] of input.items.entries()) {
    prices.push(await withParam(`items.${index}.price`, () => findPrice(prisma, accountId, item.price)));
  }
  const recurring = prices[0]!.type === 'recurring';
  prices.forEach((price, index) => {
    if ((price.type === 'recurring') !== recurring)
      throw badRequest(
        `Price ${price.id} is ${price.type}; a checkout's prices are all recurring (a subscription) or all one-time (a payment).`,
        `items.${index}.price`,
      );
    if (price.currency !== prices[0]!.currency)
      throw badRequest(
        `Price ${price.id} is in ${price.currency}, not ${prices[0]!.currency}.`,
        `items.${index}.price`,
      );
  });
  if (!recurring && input.trial_days !== undefined)
    throw badRequest('trial_days applies to recurring prices only.', 'trial_days');
  const token = newPageToken();
  const createdAt = new Date();
  const session = await insertCheckoutSession(prisma, {
    id: newId('checkoutSession'),
    accountId,
    customerId: input.customer ?? null,
    tokenHash: hashPageToken(token),
    mode: recurring ? 'subscription' : 'payment',
    items: input.items.map((item) => ({ price: item.price, quantity: item.quantity })),
    trialDays: input.trial_days ?? null,
    successUrl: input.success_url,
    cancelUrl: input.cancel_url,
    expiresAt: new Date(createdAt.getTime() + CHECKOUT_HOURS * 3_600_000),
    createdAt,
  });
  return toCheckoutObject(session, publicUrl(`${CHECKOUT_PATH}/${token}`));
}

export async function getCheckoutSession(prisma: Db, accountId: string, id: string): Promise<CheckoutSessionObject> {
  const session = await findCheckout(prisma, accountId, id);
  if (!session) throw notFound('checkout session', id);
  return toCheckoutObject(session);
}

export function findCheckoutByToken(prisma: Db, token: string) {
  return findCheckoutByHash(prisma, hashPageToken(token));
}
