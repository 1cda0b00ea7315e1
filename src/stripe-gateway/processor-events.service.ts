import Stripe from 'stripe';
import type { Db } from '../db/prisma';
import { badRequest, notFound } from '../http/errors';
import { credentialsForWebhook } from '../gateway-settings';
import type { ProcessorReport } from '../payments';
import { stripeClient } from './stripe-client';
import { IDEMPOTENCY_METADATA_KEY } from './stripe-gateway';
import { paymentIntentResult, refundResult } from './stripe-outcomes';
import { insertProcessorEvent } from './processor-events.records';
import type { ProcessorSaleReport } from '../terminals';
import { terminalSaleReportOf, withGeneratedCard } from './stripe-terminal';

/** What became of one event posted to an account's processor-webhook URL. */
export interface ProcessorEventOutcome {
  /** recorded: kept and handed on; duplicate: kept before (Stripe delivers at least once); ignored: not the service's. */
  status: 'recorded' | 'duplicate' | 'ignored';
  /** The later outcome of a charge or refund the event reports, for the charge protocol; null: none. */
  report: ProcessorReport | null;
  /** The outcome of a terminal sale the event reports (docs/decisions.md §47); null: none. */
  saleReport: ProcessorSaleReport | null;
}

/** The event types whose object the service acts on (docs/api.md, "Payment processors"); others are ignored. */
const HANDLED_OBJECTS = new Set(['payment_intent', 'charge', 'refund', 'dispute']);

/** The dispute events the service settles from (docs/decisions.md §44); funds_withdrawn/reinstated repeat what they say. */
const DISPUTE_EVENTS = new Set(['charge.dispute.created', 'charge.dispute.updated', 'charge.dispute.closed']);

interface EventObject {
  id?: string;
  object?: string;
  metadata?: Record<string, string> | null;
  payment_intent?: string | { id: string } | null;
}

/**
 * The report a PaymentIntent or refund event carries, for the charge protocol to settle the entry under
 * the same key: only objects the adapter made carry the key in their metadata.
 */
function reportOf(accountId: string, event: Stripe.Event): ProcessorReport | null {
  const object = event.data.object as EventObject;
  if (object.object === 'dispute' && DISPUTE_EVENTS.has(event.type)) return disputeReportOf(accountId, event);
  const idempotencyKey = object.metadata?.[IDEMPOTENCY_METADATA_KEY];
  if (!idempotencyKey) return null;
  if (object.object === 'payment_intent') {
    return { kind: 'charge', accountId, idempotencyKey, result: paymentIntentResult(object as Stripe.PaymentIntent) };
  }
  if (object.object === 'refund') {
    return { kind: 'refund', accountId, idempotencyKey, result: refundResult(object as Stripe.Refund) };
  }
  return null;
}

/**
 * A dispute event's report: the dispute of the PaymentIntent the adapter made (the charge's id a charge result
 * answers, so the payment's gateway reference), in the service's upper-case currency.
 */
function disputeReportOf(accountId: string, event: Stripe.Event): ProcessorReport | null {
  const dispute = event.data.object as Stripe.Dispute;
  const intent = dispute.payment_intent;
  const chargeId = typeof intent === 'string' ? intent : intent?.id;
  if (!chargeId || typeof dispute.amount !== 'number' || typeof dispute.currency !== 'string') return null;
  return {
    kind: 'dispute',
    accountId,
    dispute: {
      id: dispute.id,
      chargeId,
      amount: dispute.amount,
      currency: dispute.currency.toUpperCase(),
      status: dispute.status,
      reason: dispute.reason ?? null,
      created: new Date(dispute.created * 1000),
    },
  };
}

/**
 * Whether the event's object is one the service made: a PaymentIntent or refund carrying the adapter's key, or
 * a charge or dispute of a PaymentIntent (which the charge protocol looks up by its id); customers, products
 * and the rest of an account's Stripe activity are not the service's.
 */
function servicesObject(event: Stripe.Event): boolean {
  const object = event.data.object as EventObject;
  if (terminalSaleReportOf('', event)) return true;
  if (!object.object || !HANDLED_OBJECTS.has(object.object)) return false;
  if (object.metadata?.[IDEMPOTENCY_METADATA_KEY]) return true;
  return (object.object === 'charge' || object.object === 'dispute') && Boolean(object.payment_intent);
}

/**
 * One verified Stripe event of an account: kept once by its id, then, when it is about an object the
 * service made, handed to the charge protocol as a report (payment succeeded / failed / processing /
 * requires action, refund settled; a charge's or dispute's event is kept for the protocol to read by its
 * PaymentIntent). The seam where settling from events is wired (docs/architecture.md, "Payment processors").
 */
export async function processorEventReceived(
  prisma: Db,
  accountId: string,
  event: Stripe.Event,
  livemode: boolean,
): Promise<ProcessorEventOutcome> {
  // A live event on a test connection (or the reverse) is never the service's: the modes never mix.
  const ours = event.livemode === livemode && servicesObject(event);
  const object = event.data.object as EventObject;
  const kept = await insertProcessorEvent(prisma, {
    accountId,
    processor: 'stripe',
    eventId: event.id,
    type: event.type,
    livemode: event.livemode,
    objectId: object.id ?? null,
    outcome: ours ? 'recorded' : 'ignored',
    payload: event as unknown as object,
  });
  // A redelivery hands its report on again: recording it is once per attempt (an attempt settled already is
  // left alone), and a delivery whose recording failed before its 200 is finished by Stripe's next one.
  const saleReport = ours ? terminalSaleReportOf(accountId, event) : null;
  if (!kept) return { status: 'duplicate', report: ours ? reportOf(accountId, event) : null, saleReport };
  if (!ours) return { status: 'ignored', report: null, saleReport: null };
  return { status: 'recorded', report: reportOf(accountId, event), saleReport };
}

/**
 * POST /processor-webhooks/stripe/{webhook_key}: the account is the one whose URL it is; the body must be
 * signed with that account's webhook secret (Stripe-Signature, within Stripe's 5 minutes' tolerance), so a
 * signature made with another account's secret is refused. Refusals are 400 (404 for an unknown URL),
 * never a 500: Stripe retries what is not 2xx.
 */
export async function receiveStripeWebhook(
  prisma: Db,
  webhookKey: string,
  rawBody: Buffer,
  signature: string | undefined,
): Promise<ProcessorEventOutcome> {
  const credentials = await credentialsForWebhook(prisma, 'stripe', webhookKey);
  if (!credentials) throw notFound('processor webhook endpoint', webhookKey, 'webhook_key');
  if (!signature) throw badRequest('The Stripe-Signature header is missing.', 'Stripe-Signature', 'signature_missing');
  let event: Stripe.Event;
  try {
    event = stripeClient(credentials.secretKey).webhooks.constructEvent(rawBody, signature, credentials.webhookSecret);
  } catch (error) {
    if (error instanceof Stripe.errors.StripeSignatureVerificationError)
      throw badRequest(
        `The Stripe signature does not verify: ${error.message}`,
        'Stripe-Signature',
        'signature_invalid',
      );
    // A signed body that is not an event's JSON.
    throw badRequest(`The body is not a Stripe event: ${(error as Error).message}`, undefined, 'body_invalid');
  }
  if (typeof event.id !== 'string' || typeof event.type !== 'string' || typeof event.data?.object !== 'object')
    throw badRequest('The body is not a Stripe event.', undefined, 'body_invalid');
  const outcome = await processorEventReceived(prisma, credentials.accountId, event, credentials.livemode);
  if (!outcome.saleReport) return outcome;
  return {
    ...outcome,
    saleReport: await withGeneratedCard(stripeClient(credentials.secretKey), outcome.saleReport, event),
  };
}
