import type { PaymentMethod } from '../generated/prisma/client';
import type { Tx } from '../db/prisma';
import { recordEvent } from '../lib/events';
import { newId, newUuid } from '../lib/ids';
import { cardBrand, fingerprint } from '../payments';
import { toPaymentMethodObject } from '../payments';
import { defaultIfNone, findCustomerCard, insertPaymentMethodRow, lockCustomerMethods } from '../payments';
import { readGatewayAccount } from '../accounts';
import { cardTestBehavior } from '../simulated-gateway';
import type { ProcessorPaymentMethod } from '../payments';

export interface PresentedCard {
  number: string;
  exp_month: number;
  exp_year: number;
}

/** A terminal knows the holder's name at most. */
function holderDetails(name: string | null) {
  return {
    address: { city: null, country: null, line1: null, line2: null, postal_code: null, state: null },
    email: null,
    name,
    phone: null,
  };
}

/**
 * Saves the card a terminal approved as a payment method of the customer (the terminal's reusable
 * credential). src/payments/ has no entry point that attaches inside a caller's transaction, so this
 * follows its rules here: the same per-customer advisory lock, a card the customer already has
 * answers the saved method, the customer's first method becomes the default, and
 * payment_method.attached carries the saved method. The number itself is not stored.
 */
export async function saveTerminalCard(
  tx: Tx,
  accountId: string,
  customerId: string,
  holderName: string,
  card: PresentedCard,
): Promise<PaymentMethod> {
  await lockCustomerMethods(tx, customerId);
  const cardFingerprint = fingerprint(accountId, 'card', card.number);
  let method = await findCustomerCard(tx, accountId, customerId, cardFingerprint);
  if (!method) {
    const account = await readGatewayAccount(tx, accountId);
    method = await insertPaymentMethodRow(tx, {
      id: account?.gatewayKind === 'bank_processor' ? newUuid() : newId('paymentMethod'),
      accountId,
      customerId,
      attachedAt: new Date(),
      type: 'card',
      billingDetails: holderDetails(holderName),
      metadata: { source: 'terminal' },
      fingerprint: cardFingerprint,
      last4: card.number.slice(-4),
      cardBrand: cardBrand(card.number),
      cardExpMonth: card.exp_month,
      cardExpYear: card.exp_year,
      testBehavior: cardTestBehavior(card.number),
    });
  }
  await defaultIfNone(tx, accountId, customerId, method.id);
  await recordEvent(tx, accountId, 'payment_method.attached', toPaymentMethodObject(method));
  return method;
}

/**
 * Saves the reusable card a processor's terminal sale generated (Stripe's `generated_card`, attached to the
 * customer at the processor already) as a payment method of the customer under the processor's id, with
 * saveTerminalCard's rules: the customer's card of the same processor fingerprint answers the saved method, the
 * first method becomes the default, payment_method.attached carries it.
 */
export async function saveProcessorTerminalCard(
  tx: Tx,
  accountId: string,
  customerId: string,
  card: ProcessorPaymentMethod,
): Promise<PaymentMethod> {
  await lockCustomerMethods(tx, customerId);
  // The processor's fingerprint in its mode, as payment methods attached from the processor keep it.
  const cardFingerprint = `${card.livemode ? 'live' : 'test'}:${card.fingerprint ?? card.id}`;
  const method =
    (await findCustomerCard(tx, accountId, customerId, cardFingerprint)) ??
    (await insertPaymentMethodRow(tx, {
      id: card.id,
      accountId,
      customerId,
      attachedAt: new Date(),
      type: 'card',
      billingDetails: holderDetails(card.billingName),
      metadata: { source: 'terminal' },
      fingerprint: cardFingerprint,
      last4: card.last4,
      cardBrand: card.card?.brand ?? null,
      cardExpMonth: card.card?.expMonth ?? null,
      cardExpYear: card.card?.expYear ?? null,
      livemode: card.livemode,
      testBehavior: 'processor',
    }));
  await defaultIfNone(tx, accountId, customerId, method.id);
  await recordEvent(tx, accountId, 'payment_method.attached', toPaymentMethodObject(method));
  return method;
}
