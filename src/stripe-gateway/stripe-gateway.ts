import type Stripe from 'stripe';
import type { Db } from '../db/prisma';
import { readProcessorCredentials, type ProcessorCredentials } from '../gateway-settings';
import {
  GatewayRequestError,
  GatewayUnavailableError,
  type ChargeRequest,
  type ChargeResult,
  type PaymentGateway,
  type RefundRequest,
  type RefundResult,
  type RetrieveChargeRequest,
  type RetrieveRefundRequest,
} from '../payments';
import type { GatewayFactory, ImportPaymentMethodRequest, ProcessorPaymentMethod } from '../payments';
import { stripeClient } from './stripe-client';
import { attachStripePaymentMethod, detachStripePaymentMethod } from './stripe-payment-methods';
import { readStripeCustomerId } from './stripe-customers.records';
import {
  bankDebitFailureResult,
  classifyStripeError,
  declineResult,
  paymentIntentResult,
  refundResult,
} from './stripe-outcomes';

/**
 * The metadata key under which every PaymentIntent and refund the adapter makes carries the service's
 * idempotency key: what `retrieveCharge` and `retrieveRefund` look for once Stripe's own key has expired
 * (24 hours) or when no answer came back.
 */
export const IDEMPOTENCY_METADATA_KEY = 'billing_idempotency_key';

/** The account's Stripe connection, read once per adapter (one adapter serves one call path). */
function credentialsOnce(prisma: Db, accountId: string): () => Promise<ProcessorCredentials> {
  let loaded: Promise<ProcessorCredentials> | undefined;
  return () =>
    (loaded ??= readProcessorCredentials(prisma, accountId).then((credentials) => {
      if (!credentials || credentials.processor !== 'stripe')
        throw new GatewayRequestError(
          'processor_not_connected',
          `Account ${accountId} has not connected Stripe.`,
          false,
        );
      return credentials;
    }));
}

/** An error of a write: unknown when the request may have reached Stripe, else thrown as the port says. */
function writeFailure(error: unknown): { status: 'unknown'; reason: string } | ReturnType<typeof classifyStripeError> {
  if (!(error instanceof Error) || !('type' in error)) throw error;
  const kind = classifyStripeError(error as never);
  if (kind.kind === 'unavailable') throw new GatewayUnavailableError('stripe', kind.message);
  if (kind.kind === 'refused') throw new GatewayRequestError(kind.code, kind.message, kind.final);
  if (kind.kind === 'unknown') return { status: 'unknown', reason: kind.message };
  return kind;
}

/** A read's error: never unknown (nothing moves on a read), so anything but a refusal is worth asking again. */
function readFailure(error: unknown): never {
  if (!(error instanceof Error) || !('type' in error)) throw error;
  const kind = classifyStripeError(error as never);
  if (kind.kind === 'refused') throw new GatewayRequestError(kind.code, kind.message, kind.final);
  throw new GatewayUnavailableError('stripe', kind.kind === 'declined' ? 'Stripe declined a read' : kind.message);
}

/** How far Stripe's clock may be behind ours when a PaymentIntent's `created` is compared with an attempt's time. */
const CLOCK_SKEW_MS = 5 * 60_000;

function notFound(error: unknown): boolean {
  return (error as { statusCode?: number }).statusCode === 404;
}

/**
 * Which of Stripe's method types the PaymentIntent may use. A US bank account is an ACH debit, named alone
 * (`allowed_payment_method_types`: the API version the client pins, 2026-08-26.dahlia, refuses a written
 * `payment_method_types`). Stripe confirms it off session under the mandate the customer accepted when Stripe.js
 * saved the account, which it finds on the method, and answers `processing` for days (docs/decisions.md §41). A
 * card goes through automatic methods, and off session nobody can follow a redirect: a method that needs one
 * is refused, not left waiting.
 */
function methodTypesOf(
  method: ChargeRequest['paymentMethod'],
): Pick<Stripe.PaymentIntentCreateParams, 'allowed_payment_method_types' | 'automatic_payment_methods'> {
  if (method.type === 'us_bank_account') return { allowed_payment_method_types: ['us_bank_account'] };
  return { automatic_payment_methods: { enabled: true, allow_redirects: 'never' } };
}

export class StripeGateway implements PaymentGateway {
  private readonly credentials: () => Promise<ProcessorCredentials>;

  constructor(
    private readonly prisma: Db,
    private readonly accountId: string,
  ) {
    this.credentials = credentialsOnce(prisma, accountId);
  }

  private async client(): Promise<{ stripe: Stripe; livemode: boolean }> {
    const credentials = await this.credentials();
    return { stripe: stripeClient(credentials.secretKey), livemode: credentials.livemode };
  }

  /**
   * An off-session PaymentIntent, confirmed at once, under the service's key as Stripe's Idempotency-Key
   * (the same key answers the first PaymentIntent again), with the invoice id (the request's metadata)
   * and the key in its metadata.
   */
  async charge(request: ChargeRequest): Promise<ChargeResult> {
    const { stripe, livemode } = await this.client();
    const method = request.paymentMethod;
    const customer = method.customerId
      ? await readStripeCustomerId(this.prisma, this.accountId, method.customerId, livemode)
      : null;
    try {
      const intent = await stripe.paymentIntents.create(
        {
          amount: request.amount,
          currency: request.currency.toLowerCase(),
          payment_method: method.id,
          ...(customer ? { customer } : {}),
          ...methodTypesOf(method),
          off_session: true,
          confirm: true,
          ...(request.description ? { description: request.description } : {}),
          metadata: { ...request.metadata, [IDEMPOTENCY_METADATA_KEY]: request.idempotencyKey },
        },
        { idempotencyKey: request.idempotencyKey },
      );
      return paymentIntentResult(intent);
    } catch (error) {
      const failure = writeFailure(error);
      if ('status' in failure) return failure;
      if (failure.kind !== 'declined') throw error;
      // A decline answers 402 with the PaymentIntent it left in requires_payment_method.
      const chargeId = failure.paymentIntentId ?? failure.chargeId ?? `declined:${request.idempotencyKey}`;
      if (method.type === 'us_bank_account') return bankDebitFailureResult(chargeId, failure.decline);
      return declineResult(chargeId, { ...failure.decline });
    }
  }

  /** A Stripe refund of the PaymentIntent (its `chargeId`), under the service's key. */
  async refund(request: RefundRequest): Promise<RefundResult> {
    const { stripe } = await this.client();
    try {
      const refund = await stripe.refunds.create(
        {
          payment_intent: request.chargeId,
          amount: request.amount,
          metadata: { ...request.metadata, [IDEMPOTENCY_METADATA_KEY]: request.idempotencyKey },
        },
        { idempotencyKey: request.idempotencyKey },
      );
      return refundResult(refund);
    } catch (error) {
      const failure = writeFailure(error);
      if ('status' in failure) return failure;
      throw error;
    }
  }

  /**
   * The PaymentIntent by its id when one was answered; else the one whose metadata carries the key, among the
   * PaymentIntents of the Stripe customer it was sent for, made since its attempt was opened (a list reads its
   * writes at once); else, when that customer is not known, by Stripe's search, whose index lags writes by up to
   * about a minute: reconciliation asks after that (docs/decisions.md, "Stripe's answers as the port's
   * results"). Null: Stripe has none under the key.
   */
  async retrieveCharge(request: RetrieveChargeRequest): Promise<ChargeResult | null> {
    const { stripe, livemode } = await this.client();
    try {
      if (request.chargeId?.startsWith('pi_')) {
        return paymentIntentResult(await stripe.paymentIntents.retrieve(request.chargeId));
      }
      const intent = request.sentTo
        ? await this.customerIntentUnderKey(stripe, livemode, request.idempotencyKey, request.sentTo)
        : undefined;
      if (intent !== undefined) return intent ? paymentIntentResult(intent) : null;
      const found = await stripe.paymentIntents.search({
        query: `metadata['${IDEMPOTENCY_METADATA_KEY}']:'${searchValue(request.idempotencyKey)}'`,
        limit: 1,
      });
      return found.data[0] ? paymentIntentResult(found.data[0]) : null;
    } catch (error) {
      if (notFound(error) && request.chargeId) return null;
      return readFailure(error);
    }
  }

  /**
   * The PaymentIntent under `idempotencyKey` among its Stripe customer's, newest first, or null: none. Undefined
   * when the method's customer has no Stripe customer: `charge` then sent it without one (it reads the same row),
   * and only the search can find it.
   */
  private async customerIntentUnderKey(
    stripe: Stripe,
    livemode: boolean,
    idempotencyKey: string,
    sentTo: NonNullable<RetrieveChargeRequest['sentTo']>,
  ): Promise<Stripe.PaymentIntent | null | undefined> {
    const serviceCustomer = sentTo.paymentMethod.customerId;
    const customer = serviceCustomer
      ? await readStripeCustomerId(this.prisma, this.accountId, serviceCustomer, livemode)
      : null;
    if (!customer) return undefined;
    // The attempt's time may be a test clock's, ahead of Stripe's: never later than now, less the clocks' skew.
    const openedMs = Math.min(sentTo.openedAt.getTime(), Date.now()) - CLOCK_SKEW_MS;
    const since = Math.floor(openedMs / 1000);
    for await (const intent of stripe.paymentIntents.list({ customer, created: { gte: since }, limit: 100 })) {
      if (intent.metadata?.[IDEMPOTENCY_METADATA_KEY] === idempotencyKey) return intent;
    }
    return null;
  }

  /** The refund by id, else among the refunds of the last week the one whose metadata carries the key. */
  async retrieveRefund(request: RetrieveRefundRequest): Promise<RefundResult | null> {
    const { stripe } = await this.client();
    try {
      if (request.refundId?.startsWith('re_')) return refundResult(await stripe.refunds.retrieve(request.refundId));
      const since = Math.floor(Date.now() / 1000) - 7 * 24 * 3600;
      for await (const refund of stripe.refunds.list({ created: { gte: since }, limit: 100 })) {
        if (refund.metadata?.[IDEMPOTENCY_METADATA_KEY] === request.idempotencyKey) return refundResult(refund);
      }
      return null;
    } catch (error) {
      if (notFound(error) && request.refundId) return null;
      return readFailure(error);
    }
  }

  importPaymentMethod(request: ImportPaymentMethodRequest): Promise<ProcessorPaymentMethod> {
    return attachStripePaymentMethod(this.prisma, this.accountId, request);
  }

  detachPaymentMethod(paymentMethodId: string): Promise<void> {
    return detachStripePaymentMethod(this.prisma, this.accountId, paymentMethodId);
  }
}

/** A value inside a search query's single quotes: Stripe escapes a quote with a backslash. */
function searchValue(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/'/g, "\\'");
}

/** The adapter serving an account whose payment_processor is `stripe` (src/gateway-registrations.ts). */
export const stripeGateway: GatewayFactory = ({ prisma, account }) => new StripeGateway(prisma, account.id);
