import type { CheckoutSession } from '../generated/prisma/client';
import { currentTime } from '../lib/clock-time';
import { toUnixSeconds } from '../lib/time';
import type { AppDeps } from '../http/app-deps';
import { detachPaymentMethod, listCustomerPaymentMethods } from '../payments';
import { createCustomer } from '../customers';
import type { CreateCustomerInput } from '../customers';
import { createInvoice, getInvoice, voidInvoice } from '../invoices';
import type { InvoiceObject } from '../invoices';
import { collectInvoice } from '../invoices';
import { createSubscription, cancelSubscription, subscriptionDepsOf } from '../subscriptions';
import type { SubscriptionObject } from '../subscriptions';
import { listInvoiceTransactions } from '../transactions';
import { claimCheckout, updateCheckout } from '../checkout';
import { assertCheckoutCompletable, type CheckoutItem } from '../checkout';
import { isRefusal, type ApiError } from '../http/errors';
import { logger } from '../http/logger';
import { deleteCustomer } from './customer-deletion';
import { saveHostedCard, type HostedCard } from './hosted-card';

export type CheckoutOutcome =
  | { kind: 'complete' }
  /** Another request holds the session (a double click, a second tab): nothing was done here. */
  | { kind: 'busy' }
  /** The card was refused: the session is open again for another card, and what the attempt made is undone. */
  | { kind: 'declined'; failureCode: string | null }
  /** The checkout can no longer be completed as it was made (a price changed or went, its customer was deleted): nothing was written. */
  | { kind: 'refused'; reason: ApiError };

/** What one attempt wrote, so that a decline or a failure can take it back (docs/api.md "Hosted pages"). */
interface AttemptWrites {
  /** The customer this attempt created (none when it was given or made by an earlier attempt). */
  customerId: string | null;
  /** The card this attempt saved (none when the customer had it saved already). */
  paymentMethodId: string | null;
  /** The one-time prices' invoice this attempt created. */
  invoiceId: string | null;
}

/**
 * Completes a hosted checkout once (docs/api.md "Hosted pages"): claims the session (one request at a
 * time), checks again what its creation checked (nothing written when a price changed or went since),
 * creates the customer `buyer` when none was given (kept on the session, so a retry after a decline reuses it),
 * saves the card, then creates the subscription through the API's own use case, keyed by the session
 * and the form so a repeat answers the same subscription, or pays an invoice of the one-time prices
 * (the same invoice on a retry). A decline opens the session again and leaves nothing payable behind:
 * the subscription canceled, its first invoice voided, the refused card taken off the customer. A
 * failure of any step takes back what the attempt wrote before it rethrows.
 */
export async function completeCheckout(
  deps: AppDeps,
  session: CheckoutSession,
  buyer: CreateCustomerInput,
  card: HostedCard,
  formKey: string,
): Promise<CheckoutOutcome> {
  const { prisma } = deps;
  if (!(await claimCheckout(prisma, session.id))) return { kind: 'busy' };
  const release = () => updateCheckout(prisma, session.id, { status: 'open', claimedAt: null });
  try {
    await assertCheckoutCompletable(prisma, session);
  } catch (error) {
    await release();
    if (isRefusal(error)) return { kind: 'refused', reason: error };
    throw error;
  }
  const writes: AttemptWrites = { customerId: null, paymentMethodId: null, invoiceId: null };
  try {
    let customerId = session.customerId;
    if (!customerId) {
      const customer = await createCustomer(prisma, session.accountId, buyer);
      customerId = customer.id;
      writes.customerId = customerId;
      await updateCheckout(prisma, session.id, { customerId });
    }
    // A card the customer had saved before is answered as the saved one: it stays theirs whatever happens.
    const savedBefore = writes.customerId ? [] : await savedMethodIds(prisma, session.accountId, customerId);
    const method = await saveHostedCard(prisma, deps.gateways, session.accountId, customerId, card);
    if (savedBefore !== null && !savedBefore.includes(method.id)) writes.paymentMethodId = method.id;
    const items = session.items as unknown as CheckoutItem[];
    const attemptKey = `checkout:${session.id}:${formKey}`;
    if (session.mode === 'subscription') {
      const created = await createSubscription(
        subscriptionDepsOf(deps),
        session.accountId,
        {
          customer: customerId,
          items,
          trial_days: session.trialDays ?? 0,
          start_date: toUnixSeconds(currentTime()),
          collection_method: 'charge_automatically',
          default_payment_method: method.id,
        },
        { idempotencySeed: attemptKey },
      );
      const subscription = created.subscription;
      const invoice = subscription.latest_invoice
        ? await getInvoice(prisma, session.accountId, subscription.latest_invoice)
        : null;
      // Refused now, or by this same form before (a repeat answers that subscription, canceled, its invoice void).
      const refused = invoice?.status === 'void' || (invoice?.status === 'open' && invoice.amount_remaining > 0);
      if (invoice && refused && !created.billingPending) {
        const attempts = await listInvoiceTransactions(prisma, session.accountId, invoice.id, { page: 1, take: 10 });
        const attempt = attempts.data.find((entry) => entry.type === 'payment' && entry.status === 'failed');
        await abandonSubscription(deps, session.accountId, subscription, invoice);
        await takeBack(deps, session, { ...writes, customerId: null });
        await release();
        return { kind: 'declined', failureCode: attempt?.failure_code ?? null };
      }
      await updateCheckout(prisma, session.id, {
        status: 'complete',
        subscriptionId: subscription.id,
        completedAt: currentTime(),
      });
      return { kind: 'complete' };
    }
    let invoiceId = session.invoiceId;
    if (!invoiceId) {
      invoiceId = (
        await createInvoice(prisma, session.accountId, {
          customer: customerId,
          lines: items.map((item) => ({ price: item.price, quantity: item.quantity })),
        })
      ).id;
      writes.invoiceId = invoiceId;
      await updateCheckout(prisma, session.id, { invoiceId });
    }
    const collected = await collectInvoice(deps.prisma, deps.gateways, session.accountId, invoiceId, {
      paymentMethodId: method.id,
      attemptKey,
    });
    if (collected.outcome === 'paid' || collected.outcome === 'already_paid') {
      await updateCheckout(prisma, session.id, { status: 'complete', completedAt: currentTime() });
      return { kind: 'complete' };
    }
    // The one-time invoice stays open for the next card; only the refused card goes.
    await takeBack(deps, session, { customerId: null, paymentMethodId: writes.paymentMethodId, invoiceId: null });
    await release();
    return { kind: 'declined', failureCode: 'failureCode' in collected ? collected.failureCode : null };
  } catch (error) {
    await takeBack(deps, session, writes);
    await release();
    throw error;
  }
}

/** The ids of the cards the customer has saved, or null when there are too many to read in one page (none is then taken back). */
async function savedMethodIds(
  prisma: AppDeps['prisma'],
  accountId: string,
  customerId: string,
): Promise<string[] | null> {
  const saved = await listCustomerPaymentMethods(prisma, accountId, customerId, { page: 1, take: 100 });
  return saved.meta.itemsTotal > saved.data.length ? null : saved.data.map((method) => method.id);
}

/**
 * A subscription whose first charge was refused at checkout: canceled at once and its first invoice
 * voided (`invoice.deleted`), so no link, retry or email can charge the customer for it later.
 */
async function abandonSubscription(
  deps: AppDeps,
  accountId: string,
  subscription: SubscriptionObject,
  invoice: InvoiceObject,
): Promise<void> {
  if (subscription.status !== 'canceled')
    await cancelSubscription(subscriptionDepsOf(deps), accountId, subscription.id, false);
  if (invoice.status === 'open') await voidInvoice(deps.prisma, accountId, invoice.id);
}

/**
 * Takes back what an attempt wrote: its invoice voided, its customer deleted (its cards detached with
 * it) and forgotten by the session, or else its card detached. Each step runs only where the service
 * allows it (a charge still in flight keeps its invoice open and its customer); what it refuses is
 * logged and left as it is, never hidden.
 */
async function takeBack(deps: AppDeps, session: CheckoutSession, writes: AttemptWrites): Promise<void> {
  const { prisma, gateways } = deps;
  const step = async (what: string, work: () => Promise<unknown>) => {
    try {
      await work();
      return true;
    } catch (error) {
      logger.warn({ err: error, checkoutSession: session.id, what }, 'checkout attempt not taken back');
      return false;
    }
  };
  if (writes.invoiceId) {
    const voided = await step('invoice', () => voidInvoice(prisma, session.accountId, writes.invoiceId!));
    if (voided) await step('session invoice', () => updateCheckout(prisma, session.id, { invoiceId: null }));
  }
  if (writes.customerId) {
    const deleted = await step('customer', () =>
      deleteCustomer(prisma, gateways, session.accountId, writes.customerId!),
    );
    if (deleted) {
      await step('session customer', () => updateCheckout(prisma, session.id, { customerId: null }));
      return;
    }
  }
  if (writes.paymentMethodId)
    await step('card', () => detachPaymentMethod(prisma, gateways, session.accountId, writes.paymentMethodId!));
}
