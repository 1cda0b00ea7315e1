import { defineSearchAttributeKey } from '@temporalio/common';

/**
 * Custom search attributes operators filter on in the Web UI, e.g.
 * `BillingAccountId = "acct_..." AND BillingStatus = "past_due"`.
 * The dev server registers them at start (see temporal-dev-server.ts).
 */
export const BILLING_ACCOUNT_ID = defineSearchAttributeKey('BillingAccountId', 'KEYWORD');
export const BILLING_CUSTOMER_ID = defineSearchAttributeKey('BillingCustomerId', 'KEYWORD');
export const BILLING_STATUS = defineSearchAttributeKey('BillingStatus', 'KEYWORD');
/** The customer's email, lower-cased, on subscription and payment-plan workflows: `BillingCustomerEmail = "ada@example.com"`. */
export const BILLING_CUSTOMER_EMAIL = defineSearchAttributeKey('BillingCustomerEmail', 'KEYWORD');

/** Every key, in the order deploy/temporal/search-attributes lists them. */
export const BILLING_SEARCH_ATTRIBUTES = [BILLING_ACCOUNT_ID, BILLING_CUSTOMER_ID, BILLING_STATUS, BILLING_CUSTOMER_EMAIL];

export const SEARCH_ATTRIBUTE_FLAGS = BILLING_SEARCH_ATTRIBUTES.flatMap((key) => [
  '--search-attribute',
  `${key.name}=Keyword`,
]);
