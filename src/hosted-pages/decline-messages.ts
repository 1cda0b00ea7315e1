/** What a customer reads when their card is refused, by the gateway's failure code (docs/decisions.md §5). */
const MESSAGES: Record<string, string> = {
  card_declined: 'Your card was declined.',
  insufficient_funds: 'Your card was declined: insufficient funds.',
  expired_card: 'Your card has expired.',
  processing_error: 'Your card could not be charged because of a processing error. Try again in a moment.',
  currency_not_supported: 'This payment method cannot pay in this currency.',
};

/** The processor's code says the card was declined (rather than not found or not usable here). */
export function isDeclineCode(code: string): boolean {
  return code in MESSAGES;
}

export function declineMessage(code: string | null): string {
  return (code && MESSAGES[code]) || 'Your payment was not accepted.';
}
