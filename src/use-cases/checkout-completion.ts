import type { CheckoutSession } from '../generated/prisma/client';
import type { AppDeps } from '../http/app-deps';
import type { PaymentGateway } from '../payments/gateway';
import type { CreatePaymentMethodInput } from '../payments/payment-method.schemas';
import { createPaymentMethod } from '../payments/payment-method.service';
import { createCustomer } from '../customers/customer.service';
import { createCustomerBody } from '../customers/customer.schemas';
import { createInvoice } from '../invoices/invoice.service';
import { collectInvoice } from '../invoices/invoice-payment.service';
import { createSubscription, cancelSubscription, subscriptionDepsOf } from '../subscriptions/subscription.service';
import { createSubscriptionBody } from '../subscriptions/subscription.schemas';
import { noticeInvoiceSettled } from '../subscriptions/subscription-workflow.client';
import { getInvoice } from '../invoices/invoice.service';
import { listInvoiceTransactions } from '../transactions/transaction.service';
import { claimCheckout, updateCheckout } from '../checkout/checkout.records';
import type { CheckoutItem } from '../checkout/checkout.service';

export interface CheckoutBuyer {
  name: string;
  email: string;
  address: { line1: string; city: string; postal_code: string; country: string };
}

export type CheckoutOutcome =
  | { kind: 'complete' }
  /** Another request holds the session (a double click, a second tab): nothing was done here. */
  | { kind: 'busy' }
  /** The card was refused: the session is open again for another card. */
  | { kind: 'declined'; failureCode: string | null };

/**
 * Completes a hosted checkout once (docs/api.md "Hosted pages"): claims the session (one request at a
 * time), creates the customer when none was given (kept on the session, so a retry after a decline
 * reuses it), saves the card, then creates the subscription through the API's own use case, keyed by
 * the session and the form so a repeat answers the same subscription, or pays an invoice of the
 * one-time prices (the same invoice on a retry). A decline opens the session again.
 */
export async function completeCheckout(
  deps: AppDeps & { gateway: PaymentGateway },
  session: CheckoutSession,
  buyer: CheckoutBuyer,
  card: (customerId: string) => CreatePaymentMethodInput,
  formKey: string,
): Promise<CheckoutOutcome> {
  const { prisma } = deps;
  if (!(await claimCheckout(prisma, session.id))) return { kind: 'busy' };
  const release = () => updateCheckout(prisma, session.id, { status: 'open', claimedAt: null });
  try {
    let customerId = session.customerId;
    if (!customerId) {
      const customer = await createCustomer(
        prisma,
        session.accountId,
        createCustomerBody.parse({ name: buyer.name, email: buyer.email, address: [buyer.address] }),
      );
      customerId = customer.id;
      await updateCheckout(prisma, session.id, { customerId });
    }
    const method = await createPaymentMethod(prisma, session.accountId, card(customerId));
    const items = session.items as unknown as CheckoutItem[];
    const attemptKey = `checkout:${session.id}:${formKey}`;
    if (session.mode === 'subscription') {
      const created = await createSubscription(
        subscriptionDepsOf(deps),
        session.accountId,
        createSubscriptionBody.parse({
          customer: customerId,
          items,
          trial_days: session.trialDays ?? 0,
          start_date: Math.floor(Date.now() / 1000),
          default_payment_method: method.id,
        }),
        { idempotencySeed: attemptKey },
      );
      const subscription = created.subscription;
      const invoice = subscription.latest_invoice
        ? await getInvoice(prisma, session.accountId, subscription.latest_invoice)
        : null;
      if (invoice && invoice.status !== 'paid' && invoice.amount_remaining > 0 && !created.billingPending) {
        // The first charge was refused: no subscription is left behind for a checkout that did not complete.
        const attempts = await listInvoiceTransactions(prisma, session.accountId, invoice.id, { page: 1, take: 10 });
        const attempt = attempts.data.find((entry) => entry.type === 'payment' && entry.status === 'failed');
        await cancelSubscription(subscriptionDepsOf(deps), session.accountId, subscription.id, false);
        await release();
        return { kind: 'declined', failureCode: attempt?.failure_code ?? null };
      }
      await updateCheckout(prisma, session.id, {
        status: 'complete',
        subscriptionId: subscription.id,
        completedAt: new Date(),
      });
      return { kind: 'complete' };
    }
    const invoiceId =
      session.invoiceId ??
      (
        await createInvoice(prisma, session.accountId, {
          customer: customerId,
          lines: items.map((item) => ({ price: item.price, quantity: item.quantity })),
        })
      ).id;
    if (!session.invoiceId) await updateCheckout(prisma, session.id, { invoiceId });
    const collected = await collectInvoice(deps.prisma, deps.gateway, session.accountId, invoiceId, {
      paymentMethodId: method.id,
      attemptKey,
    });
    if (collected.outcome === 'paid' || collected.outcome === 'already_paid') {
      await noticeInvoiceSettled(deps.temporal, await getInvoice(prisma, session.accountId, invoiceId));
      await updateCheckout(prisma, session.id, { status: 'complete', completedAt: new Date() });
      return { kind: 'complete' };
    }
    await release();
    return { kind: 'declined', failureCode: 'failureCode' in collected ? collected.failureCode : null };
  } catch (error) {
    await release();
    throw error;
  }
}
