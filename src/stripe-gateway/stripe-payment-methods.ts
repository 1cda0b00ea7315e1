import type Stripe from 'stripe';
import type { Db } from '../db/prisma';
import { readProcessorCredentials } from '../gateway-settings';
import { GatewayRequestError, GatewayUnavailableError, type ProcessorPaymentMethod } from '../payments';
import { stripeClient } from './stripe-client';
import { keepStripeCustomerId, readStripeCustomerId } from './stripe-customers.records';
import { classifyStripeError } from './stripe-outcomes';

/** What the service keeps of a Stripe payment method: the port's shape (Stripe's id and what it shows). */
export type StripeMethodDetails = ProcessorPaymentMethod;

function methodDetails(method: Stripe.PaymentMethod): StripeMethodDetails {
  if (method.type === 'card' && method.card) {
    return {
      id: method.id,
      type: 'card',
      livemode: method.livemode,
      fingerprint: method.card.fingerprint ?? null,
      last4: method.card.last4,
      billingName: method.billing_details?.name ?? null,
      card: {
        brand: method.card.brand,
        expMonth: method.card.exp_month,
        expYear: method.card.exp_year,
        wallet: method.card.wallet?.type ?? null,
      },
      bank: null,
    };
  }
  if (method.type === 'us_bank_account' && method.us_bank_account) {
    const bank = method.us_bank_account;
    return {
      id: method.id,
      type: 'us_bank_account',
      livemode: method.livemode,
      fingerprint: bank.fingerprint ?? null,
      last4: bank.last4 ?? '',
      billingName: method.billing_details?.name ?? null,
      card: null,
      bank: {
        bankName: bank.bank_name ?? null,
        routingNumber: bank.routing_number ?? null,
        holderType: bank.account_holder_type ?? null,
        accountType: bank.account_type ?? null,
      },
    };
  }
  throw new GatewayRequestError(
    'payment_method_type_unsupported',
    `Stripe's payment method ${method.id} is a ${method.type}; the service takes card and us_bank_account.`,
  );
}

/** A Stripe error of a payment-method call, thrown as the port's errors (nothing moves money here). */
function methodFailure(error: unknown, paymentMethodId: string): never {
  if (!(error instanceof Error) || !('type' in error)) throw error;
  const kind = classifyStripeError(error as never);
  if (kind.kind === 'unavailable' || kind.kind === 'unknown') throw new GatewayUnavailableError('stripe', kind.message);
  if (kind.kind === 'declined') throw new GatewayRequestError(kind.decline.code ?? 'card_declined', error.message);
  const code = kind.code === 'resource_missing' ? 'payment_method_unknown' : kind.code;
  throw new GatewayRequestError(code, `Stripe refused payment method ${paymentMethodId}: ${kind.message}`);
}

async function connection(prisma: Db, accountId: string) {
  const credentials = await readProcessorCredentials(prisma, accountId);
  if (!credentials || credentials.processor !== 'stripe')
    throw new GatewayRequestError('processor_not_connected', `Account ${accountId} has not connected Stripe.`);
  return { stripe: stripeClient(credentials.secretKey), livemode: credentials.livemode };
}

/**
 * The Stripe customer standing for `customerId` in the account's mode, made the first time. Its
 * Idempotency-Key names the customer, so two attaches racing make one at Stripe.
 */
async function stripeCustomerFor(
  prisma: Db,
  stripe: Stripe,
  accountId: string,
  customerId: string,
  livemode: boolean,
): Promise<string> {
  const known = await readStripeCustomerId(prisma, accountId, customerId, livemode);
  if (known) return known;
  const created = await stripe.customers.create(
    { metadata: { billing_customer_id: customerId } },
    { idempotencyKey: `customer:${accountId}:${customerId}:${livemode ? 'live' : 'test'}` },
  );
  return keepStripeCustomerId(prisma, accountId, customerId, livemode, created.id);
}

/**
 * Attaches a payment method the client made with Stripe.js (or a Stripe test id such as `pm_card_visa`)
 * to the customer at Stripe, and answers what Stripe says of it (brand, last4, expiry, wallet). A method
 * of the other mode (a live method on a test key) is refused: test and live objects never mix.
 */
export async function attachStripePaymentMethod(
  prisma: Db,
  accountId: string,
  input: { paymentMethodId: string; customerId: string },
): Promise<StripeMethodDetails> {
  const { stripe, livemode } = await connection(prisma, accountId);
  try {
    const customer = await stripeCustomerFor(prisma, stripe, accountId, input.customerId, livemode);
    const attached = await stripe.paymentMethods.attach(input.paymentMethodId, { customer });
    if (attached.livemode !== livemode) {
      throw new GatewayRequestError(
        'livemode_mismatch',
        `Payment method ${attached.id} is a ${attached.livemode ? 'live' : 'test'} object; the account's key is not.`,
      );
    }
    return methodDetails(attached);
  } catch (error) {
    if (error instanceof GatewayRequestError) throw error;
    return methodFailure(error, input.paymentMethodId);
  }
}

/** Detaches the payment method at Stripe: it can never be charged again there either. */
export async function detachStripePaymentMethod(prisma: Db, accountId: string, paymentMethodId: string): Promise<void> {
  const { stripe } = await connection(prisma, accountId);
  try {
    await stripe.paymentMethods.detach(paymentMethodId);
  } catch (error) {
    methodFailure(error, paymentMethodId);
  }
}
