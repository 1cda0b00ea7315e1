import type Stripe from 'stripe';
import type { Db, Tx } from '../db/prisma';
import { ApiError } from '../http/errors';
import { readProcessorCredentials } from '../gateway-settings';
import type {
  ProcessorSale,
  ProcessorSaleOutcome,
  ProcessorSaleReport,
  TerminalProcessor,
  TerminalProcessorFactory,
} from '../terminals';
import { stripeClient } from './stripe-client';
import { classifyStripeError } from './stripe-outcomes';
import { keepTerminalLocationId, readTerminalLocationId } from './stripe-terminal.records';

/** The metadata keys naming the service's sale on the PaymentIntent it makes (read back from Stripe's events). */
export const TERMINAL_SALE_METADATA_KEY = 'terminal_sale_id';
export const PAYMENT_PLAN_METADATA_KEY = 'payment_plan_id';

/** Stripe's simulated reader (test mode): what registers a reader without a device. */
const SIMULATED_READER_CODE = 'simulated-wpe';

/**
 * A Stripe error as the API's: Stripe refusing the request (400, naming `param` when the caller gave what it
 * refused) or not answering (502: retry; a sale stays as it was, docs/decisions.md §47).
 */
function terminalFailure(error: unknown, what: string, param?: string): never {
  if (!(error instanceof Error) || !('type' in error)) throw error;
  const kind = classifyStripeError(error as never);
  if (kind.kind === 'refused' || kind.kind === 'declined')
    throw new ApiError(
      'invalid_request_error',
      'processor_refused',
      `Stripe refused ${what}: ${kind.kind === 'refused' ? kind.message : kind.decline.message}`,
      param,
    );
  throw new ApiError('api_error', 'processor_error', `Stripe did not answer ${what}: ${kind.message}`, undefined, 502);
}

/**
 * The API version a terminal sale's PaymentIntent is created with: the last that takes `payment_method_types`
 * (2026-08-26 removed it; `card_present` in `allowed_payment_method_types` came with 2026-09-30).
 */
const TERMINAL_PAYMENT_INTENT_API_VERSION = '2026-07-29.dahlia';

/** Stripe Terminal (docs/decisions.md §47): readers at a Location of the account, sales as card_present PaymentIntents. */
export class StripeTerminalProcessor implements TerminalProcessor {
  constructor(
    private readonly prisma: Db,
    private readonly accountId: string,
  ) {}

  private async client(): Promise<{ stripe: Stripe; livemode: boolean }> {
    const credentials = await readProcessorCredentials(this.prisma, this.accountId);
    if (!credentials || credentials.processor !== 'stripe')
      throw new ApiError('conflict', 'processor_not_connected', `Account ${this.accountId} has not connected Stripe.`);
    return { stripe: stripeClient(credentials.secretKey), livemode: credentials.livemode };
  }

  /** The account's Location, made once per mode under a key naming the account (two racing make one). */
  private async locationId(stripe: Stripe, livemode: boolean): Promise<string> {
    const known = await readTerminalLocationId(this.prisma, this.accountId, livemode);
    if (known) return known;
    const created = await stripe.terminal.locations.create(
      {
        display_name: 'Billing service terminals',
        address: { line1: 'Unknown', city: 'Unknown', postal_code: '00000', country: 'US' },
        metadata: { billing_account_id: this.accountId },
      },
      { idempotencyKey: `terminal-location:${this.accountId}:${livemode ? 'live' : 'test'}` },
    );
    return keepTerminalLocationId(this.prisma, this.accountId, livemode, created.id);
  }

  async registerReader(input: { terminalId: string; label: string; registrationCode?: string }): Promise<string> {
    const { stripe, livemode } = await this.client();
    const registrationCode = input.registrationCode ?? (livemode ? undefined : SIMULATED_READER_CODE);
    if (!registrationCode)
      throw new ApiError(
        'invalid_request_error',
        'parameter_missing',
        'registration_code is required on a live Stripe account: the code the reader shows.',
        'registration_code',
      );
    try {
      const location = await this.locationId(stripe, livemode);
      const reader = await stripe.terminal.readers.create(
        {
          registration_code: registrationCode,
          location,
          label: input.label,
          metadata: { billing_terminal_id: input.terminalId },
        },
        { idempotencyKey: `terminal-reader:${input.terminalId}` },
      );
      return reader.id;
    } catch (error) {
      return terminalFailure(error, 'the reader', 'registration_code');
    }
  }

  /**
   * A card_present PaymentIntent for the sale (under the sale's key: sent again, it answers the same one), then
   * the reader is told to collect it (`process_payment_intent`, server-driven).
   */
  async startSale(request: ProcessorSale): Promise<string> {
    const { stripe } = await this.client();
    const { sale, terminal } = request;
    try {
      const intent = await stripe.paymentIntents.create(
        {
          amount: Number(sale.amount),
          currency: sale.currency.toLowerCase(),
          // The client's pinned version refuses a written payment_method_types and takes card_present in
          // allowed_payment_method_types only from a later version (docs/decisions.md §47): this request names the
          // last version that writes it, the one stripe-mock's OpenAPI validates too.
          ...({ payment_method_types: ['card_present'] } as object),
          metadata: { [PAYMENT_PLAN_METADATA_KEY]: request.planId, [TERMINAL_SALE_METADATA_KEY]: sale.id },
        },
        { idempotencyKey: request.idempotencyKey, apiVersion: TERMINAL_PAYMENT_INTENT_API_VERSION },
      );
      await stripe.terminal.readers.processPaymentIntent(
        terminal.readerId!,
        { payment_intent: intent.id },
        { idempotencyKey: `${request.idempotencyKey}:process` },
      );
      return intent.id;
    } catch (error) {
      return terminalFailure(error, `the sale on reader ${terminal.readerId}`);
    }
  }

  /**
   * The reader's action cancelled, then the PaymentIntent: once it is canceled nothing can be taken, so the sale
   * is cancelled. A PaymentIntent Stripe refuses to cancel (it succeeded meanwhile) leaves the sale to its event.
   */
  async cancelSale(request: ProcessorSale): Promise<'cancelled' | 'requested'> {
    const { stripe } = await this.client();
    const { sale, terminal } = request;
    try {
      await stripe.terminal.readers.cancelAction(terminal.readerId!);
    } catch (error) {
      // A reader with no action left (the customer finished, or it was never sent) has nothing to cancel.
      if (classifyStripeError(error as never).kind !== 'refused') terminalFailure(error, 'the cancellation');
    }
    if (!sale.processorReference) return 'requested';
    try {
      const intent = await stripe.paymentIntents.retrieve(sale.processorReference);
      if (intent.status === 'succeeded') return 'requested';
      if (intent.status !== 'canceled') await stripe.paymentIntents.cancel(intent.id);
      return 'cancelled';
    } catch (error) {
      if (classifyStripeError(error as never).kind === 'refused') return 'requested';
      return terminalFailure(error, 'the cancellation');
    }
  }

  /** Stripe's test helper: the simulated reader is presented its test card; Stripe's events tell the outcome. */
  async presentTestCard(request: ProcessorSale): Promise<void> {
    const { stripe } = await this.client();
    try {
      await stripe.testHelpers.terminal.readers.presentPaymentMethod(request.terminal.readerId!);
    } catch (error) {
      terminalFailure(error, 'the test card');
    }
  }

  /** The PaymentIntent as Stripe holds it: succeeded, or declined once nothing can be taken; else unknown. */
  async saleOutcome(_db: Db | Tx, sale: { processorReference: string | null }): Promise<ProcessorSaleOutcome> {
    if (!sale.processorReference) return 'unknown';
    const { stripe } = await this.client();
    try {
      return saleOutcomeOf(await stripe.paymentIntents.retrieve(sale.processorReference));
    } catch (error) {
      return terminalFailure(error, `the sale's PaymentIntent ${sale.processorReference}`);
    }
  }
}

/** A terminal PaymentIntent's status as the sale's outcome (docs/decisions.md §47). */
export function saleOutcomeOf(intent: Stripe.PaymentIntent): ProcessorSaleOutcome {
  if (intent.status === 'succeeded') return 'approved';
  if (intent.status === 'canceled') return 'declined';
  if (intent.status === 'requires_payment_method' && intent.last_payment_error) return 'declined';
  return 'unknown';
}

/** The PaymentIntent events that end a terminal sale, and the sale's outcome each says (docs/decisions.md §47). */
const SALE_OUTCOME_OF_EVENT: Record<string, ProcessorSaleReport['outcome']> = {
  'payment_intent.succeeded': 'approved',
  'payment_intent.payment_failed': 'declined',
  'payment_intent.canceled': 'cancelled',
};

/**
 * The terminal sale an event ends, or null: a PaymentIntent event of a PaymentIntent naming a terminal sale in its
 * metadata, or a reader's failed `process_payment_intent` (its outcome is then asked of Stripe: the sale is `lost`,
 * `resolving`, until someone continues it). Whether the sale is the account's is the recorder's to check.
 */
export function terminalSaleReportOf(accountId: string, event: Stripe.Event): ProcessorSaleReport | null {
  const object = event.data.object as {
    object?: string;
    metadata?: Record<string, string> | null;
    action?: { type?: string; process_payment_intent?: { payment_intent?: string | { id: string } } } | null;
  };
  if (object.object === 'payment_intent') {
    const saleId = object.metadata?.[TERMINAL_SALE_METADATA_KEY];
    const outcome = SALE_OUTCOME_OF_EVENT[event.type];
    return saleId && outcome ? { accountId, sale: { id: saleId }, outcome } : null;
  }
  if (object.object === 'terminal.reader' && event.type === 'terminal.reader.action_failed') {
    const intent = object.action?.process_payment_intent?.payment_intent;
    const reference = typeof intent === 'string' ? intent : intent?.id;
    return reference ? { accountId, sale: { processorReference: reference }, outcome: 'lost' } : null;
  }
  return null;
}

/**
 * An approved sale's report with the reusable card Stripe generated from the card presented
 * (`payment_method_details.card_present.generated_card` of the PaymentIntent's charge, read from Stripe: events
 * carry the charge's id only). None: the sale is approved without a credential.
 */
export async function withGeneratedCard(
  stripe: Stripe,
  report: ProcessorSaleReport,
  event: Stripe.Event,
): Promise<ProcessorSaleReport> {
  if (report.outcome !== 'approved') return report;
  const charge = (event.data.object as Stripe.PaymentIntent).latest_charge;
  if (!charge) return { ...report, generatedCard: null };
  try {
    const read = typeof charge === 'string' ? await stripe.charges.retrieve(charge) : charge;
    return { ...report, generatedCard: read.payment_method_details?.card_present?.generated_card ?? null };
  } catch (error) {
    return terminalFailure(error, `the sale's charge ${typeof charge === 'string' ? charge : charge.id}`);
  }
}

/** The terminal processor of an account whose payment_processor is `stripe` (src/gateway-registrations.ts). */
export const stripeTerminalProcessor: TerminalProcessorFactory = ({ prisma, accountId }) =>
  new StripeTerminalProcessor(prisma, accountId);
