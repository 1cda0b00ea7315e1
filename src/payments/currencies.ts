import { badRequest } from '../http/errors';

/**
 * The currencies a payment method pays (decisions.md §5): a US bank account debits USD only (ACH);
 * a card pays every currency the API takes (ISO 4217), as the card networks convert.
 */
export function paysCurrency(methodType: string, currency: string): boolean {
  return methodType !== 'us_bank_account' || currency.toUpperCase() === 'USD';
}

/** 400 `payment_method_currency_unsupported` naming `param` when `method` cannot pay `currency` (an invoice's, a subscription's, a plan's). */
export function assertPaysCurrency(method: { id: string; type: string }, currency: string, param: string): void {
  if (paysCurrency(method.type, currency)) return;
  throw badRequest(
    `Payment method ${method.id} is a US bank account, which pays only USD; this is billed in ${currency.toUpperCase()}. Use a card.`,
    param,
    'payment_method_currency_unsupported',
  );
}
