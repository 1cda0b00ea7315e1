import type { PaymentMethod } from '../generated/prisma/client';
import type { Tx } from '../db/prisma';
import { recordEvent } from '../lib/events';
import { newId, newUuid } from '../lib/ids';
import { cardBrand, fingerprint } from '../payments';
import { toPaymentMethodObject } from '../payments';
import { defaultIfNone, findCustomerCard, insertPaymentMethodRow, lockCustomerMethods } from '../payments';
import { readGatewayAccount } from '../accounts';
import { cardTestBehavior } from '../simulated-gateway';

export interface PresentedCard {
  number: string;
  exp_month: number;
  exp_year: number;
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
      billingDetails: {
        address: { city: null, country: null, line1: null, line2: null, postal_code: null, state: null },
        email: null,
        name: holderName,
        phone: null,
      },
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
