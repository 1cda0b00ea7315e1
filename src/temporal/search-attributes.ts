import { defineSearchAttributeKey } from '@temporalio/common';

/**
 * Custom search attributes operators filter on in the Web UI, e.g.
 * `BillingAccountId = "acct_..." AND BillingStatus = "past_due"`.
 * The dev server registers them at start (see temporal-dev-server.ts).
 */
export const BILLING_ACCOUNT_ID = defineSearchAttributeKey('BillingAccountId', 'KEYWORD');
export const BILLING_CUSTOMER_ID = defineSearchAttributeKey('BillingCustomerId', 'KEYWORD');
export const BILLING_STATUS = defineSearchAttributeKey('BillingStatus', 'KEYWORD');
/**
 * No longer set: the customer's email in clear, which workflows started before BillingCustomerEmailHash
 * still carry. Registered so that filters on those keep working until they end (docs/operations.md).
 */
export const BILLING_CUSTOMER_EMAIL = defineSearchAttributeKey('BillingCustomerEmail', 'KEYWORD');
/**
 * A keyed hash of the customer's email on subscription and payment-plan workflows (src/temporal/email-hash.ts),
 * never the address: `npm run email-hash -- ada@example.com` prints the filter.
 */
export const BILLING_CUSTOMER_EMAIL_HASH = defineSearchAttributeKey('BillingCustomerEmailHash', 'KEYWORD');

/** Every key, in the order deploy/temporal/search-attributes lists them. */
export const BILLING_SEARCH_ATTRIBUTES = [
  BILLING_ACCOUNT_ID,
  BILLING_CUSTOMER_ID,
  BILLING_STATUS,
  BILLING_CUSTOMER_EMAIL,
  BILLING_CUSTOMER_EMAIL_HASH,
];

export const SEARCH_ATTRIBUTE_FLAGS = BILLING_SEARCH_ATTRIBUTES.flatMap((key) => [
  '--search-attribute',
  `${key.name}=Keyword`,
]);
