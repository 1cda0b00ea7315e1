/**
 * Test numbers understood by the simulated gateway (decisions.md §5). Outcomes are decided when the
 * method is created and stored as a marker, because the number itself is never stored.
 */
export const TEST_BEHAVIORS = [
  'succeeds',
  'card_declined',
  'insufficient_funds',
  'processing_error',
  'account_closed',
  'requires_action',
] as const;
export type TestBehavior = (typeof TEST_BEHAVIORS)[number];

export const TEST_CARDS: Record<string, TestBehavior> = {
  '4242424242424242': 'succeeds',
  '4000000000000002': 'card_declined',
  '4000000000009995': 'insufficient_funds',
  '4000000000000119': 'processing_error',
  // Stripe's 3-D Secure test card: every charge waits for the customer to authenticate (docs/decisions.md §40).
  '4000002760003184': 'requires_action',
};

/** US bank account test numbers (any valid routing number, e.g. 110000000). */
export const TEST_BANK_ACCOUNTS: Record<string, TestBehavior> = {
  '000123456789': 'succeeds',
  '000111111116': 'account_closed',
  '000222222227': 'insufficient_funds',
};

/** Any other valid number succeeds: the simulator is a test-mode gateway. */
export function cardTestBehavior(number: string): TestBehavior {
  return TEST_CARDS[number] ?? 'succeeds';
}

export function bankAccountTestBehavior(accountNumber: string): TestBehavior {
  return TEST_BANK_ACCOUNTS[accountNumber] ?? 'succeeds';
}

/**
 * The ACH return a failing test bank account's debit comes back with, days after it was accepted
 * (docs/decisions.md §40): the Nacha return codes, as the port names them (`bank_return_R01`...).
 */
export const BANK_RETURNS: Partial<Record<TestBehavior, { code: string; message: string }>> = {
  insufficient_funds: { code: 'bank_return_R01', message: 'The bank returned the debit: insufficient funds (R01).' },
  account_closed: { code: 'bank_return_R02', message: 'The bank returned the debit: the account is closed (R02).' },
};

/** The behaviours that decline the charge, with what the decline says. */
export type FailingBehavior = Exclude<TestBehavior, 'succeeds' | 'requires_action'>;

export const FAILURES: Record<FailingBehavior, { card: string; bank: string; retryable: boolean }> = {
  card_declined: { card: 'Your card was declined.', bank: 'The payment was declined by the bank.', retryable: false },
  insufficient_funds: {
    card: 'Your card has insufficient funds.',
    bank: 'The bank account has insufficient funds.',
    retryable: false,
  },
  processing_error: {
    card: 'An error occurred while processing the card; try again later.',
    bank: 'An error occurred while processing the bank debit; try again later.',
    retryable: true,
  },
  account_closed: { card: 'The card account is closed.', bank: 'The bank account has been closed.', retryable: false },
};
