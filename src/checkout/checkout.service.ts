import type { CheckoutSession } from '../generated/prisma/client';
import type { Db } from '../db/prisma';
import { badRequest, conflict, notFound } from '../http/errors';
import { findCustomer } from '../customers';
import { assertBillablePrice, findPrice } from '../catalog';
import type { PriceObject } from '../catalog';
import { withParam } from '../invoices';
import { MAX_CHARGE_AMOUNT } from '../lib/money';
import { assertPeriodWithinCeiling } from '../subscriptions';
import { newId } from '../lib/ids';
import { hashPageToken, newPageToken, publicUrl } from '../lib/page-tokens';
import { toUnixSeconds } from '../lib/time';
import { HOUR_MS } from '../lib/durations';
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

/** How many cents one payment of a checkout's prices may take: the API's one ceiling (docs/decisions.md §6). */
function assertPaymentWithinCeiling(items: CheckoutItem[], prices: PriceObject[]): void {
  const lineTotals = items.map((item, index) => prices[index]!.unit_amount * item.quantity);
  const total = lineTotals.reduce((sum, amount) => sum + amount, 0);
  if (total <= MAX_CHARGE_AMOUNT) return;
  const alone = lineTotals.findIndex((amount) => amount > MAX_CHARGE_AMOUNT);
  throw badRequest(
    `The checkout would charge ${total} cents at once; at most ${MAX_CHARGE_AMOUNT} may be charged at once.`,
    alone >= 0 ? `items.${alone}.quantity` : 'items',
    'amount_too_large',
  );
}

/**
 * The checks of a checkout's prices: the account's, all recurring (a subscription) or all one-time (a
 * payment), in one currency, and within the money ceiling as the subscription's period or the invoice
 * will bill them (400 `amount_too_large` naming the item or `items`). Run at creation and again when the
 * page completes it, before anything is written: a price never billed can still change or go meanwhile.
 */
export async function checkCheckoutItems(
  prisma: Db,
  accountId: string,
  items: CheckoutItem[],
  trialDays: number | null | undefined,
): Promise<'subscription' | 'payment'> {
  const prices: PriceObject[] = [];
  for (const [index, item] of items.entries()) {
    const price = await withParam(`items.${index}.price`, () => findPrice(prisma, accountId, item.price));
    assertBillablePrice(price, `items.${index}.price`);
    prices.push(price);
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
  if (!recurring && trialDays !== undefined && trialDays !== null)
    throw badRequest('trial_days applies to recurring prices only.', 'trial_days');
  if (!recurring) {
    assertPaymentWithinCeiling(items, prices);
    return 'payment';
  }
  // The same check POST /subscriptions makes: a checkout it would refuse is refused here, not on the page.
  assertPeriodWithinCeiling(
    prices.map((price, index) => ({
      unitAmount: price.unit_amount,
      quantity: items[index]!.quantity,
      rates: [],
      taxBehavior: price.tax_behavior,
      param: `items.${index}`,
    })),
  );
  return 'subscription';
}

/**
 * Whether the page may still complete the checkout as it was made: its prices pass creation's checks
 * and make the same mode, and its customer (given, or made by an earlier attempt) is still there. A
 * refusal (ApiError) is thrown before the completion writes anything.
 */
export async function assertCheckoutCompletable(prisma: Db, session: CheckoutSession): Promise<void> {
  const mode = await checkCheckoutItems(
    prisma,
    session.accountId,
    session.items as unknown as CheckoutItem[],
    session.trialDays,
  );
  if (mode !== session.mode)
    throw conflict(`The checkout's prices now make a ${mode}, not a ${session.mode}.`, 'checkout_changed');
  if (session.customerId)
    await withParam('customer', () => findCustomer(prisma, session.accountId, session.customerId!));
}

/** POST /checkout/sessions: the prices pass checkCheckoutItems; the page does the rest. */
export async function createCheckoutSession(
  prisma: Db,
  accountId: string,
  input: CreateCheckoutSessionInput,
): Promise<CheckoutSessionObject> {
  if (input.customer) await withParam('customer', () => findCustomer(prisma, accountId, input.customer!));
  const mode = await checkCheckoutItems(prisma, accountId, input.items, input.trial_days);
  const token = newPageToken();
  // The link lives in the real world's time (page.ts compares its expiry with the wall clock).
  const createdAt = new Date();
  const session = await insertCheckoutSession(prisma, {
    id: newId('checkoutSession'),
    accountId,
    customerId: input.customer ?? null,
    tokenHash: hashPageToken(token),
    mode,
    items: input.items.map((item) => ({ price: item.price, quantity: item.quantity })),
    trialDays: input.trial_days ?? null,
    successUrl: input.success_url,
    cancelUrl: input.cancel_url,
    expiresAt: new Date(createdAt.getTime() + CHECKOUT_HOURS * HOUR_MS),
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
