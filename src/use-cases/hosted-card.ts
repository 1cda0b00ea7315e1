import type { Db } from '../db/prisma';
import { ApiError, isRefusal } from '../http/errors';
import type { CreatePaymentMethodInput, Gateways, PaymentMethodObject } from '../payments';
import { attachPaymentMethod, createPaymentMethod } from '../payments';

/**
 * A card a hosted page collected (docs/api.md, "Payment processors"): typed into the service's own form (an
 * account on the simulated gateway), or made in the customer's browser by the processor's element, which
 * posts only the method's id (`pm_...`): the number never reaches this service.
 */
export type HostedCard =
  { kind: 'typed'; input: CreatePaymentMethodInput } | { kind: 'processor'; paymentMethodId: string };

/** Why a card made by the processor's element could not be attached: the page says so beside the card. */
export class HostedCardRefusedError extends Error {
  constructor(
    message: string,
    /** The processor's code (`card_declined`...), `resource_missing` for an id it does not know, or `gateway_unavailable`. */
    readonly code: string,
    /** The processor did not answer: nothing changed, the same card may be sent again. */
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

/**
 * The page's card saved for `customerId` (the saved one when the customer has it already): a typed card
 * through createPaymentMethod, a processor's method through the API's own attach (docs/api.md, "Payment
 * processors"). The attach's refusals of the method (unknown to the processor, declined, of the other mode)
 * and a processor that does not answer become a HostedCardRefusedError, which the page shows.
 */
export async function saveHostedCard(
  prisma: Db,
  gateways: Gateways,
  accountId: string,
  customerId: string,
  card: HostedCard,
): Promise<PaymentMethodObject> {
  if (card.kind === 'typed')
    return createPaymentMethod(prisma, gateways, accountId, { ...card.input, customer: customerId });
  try {
    return await attachPaymentMethod(prisma, gateways, accountId, card.paymentMethodId, { customer: customerId });
  } catch (error) {
    // A method this customer may not have (another customer's, one detached for good) is refused the same way.
    const unavailable = error instanceof ApiError && error.code === 'gateway_unavailable';
    if (isRefusal(error) || unavailable)
      throw new HostedCardRefusedError((error as ApiError).message, (error as ApiError).code, unavailable);
    throw error;
  }
}
