import { defineSearchAttributeKey } from '@temporalio/common';

/**
 * Custom search attributes operators filter on in the Web UI, e.g.
 * `BillingAccountId = "acct_..." AND BillingStatus = "past_due"`.
 * The dev server registers them at start (see temporal-dev-server.ts).
 */
export const BILLING_ACCOUNT_ID = defineSearchAttributeKey('BillingAccountId', 'KEYWORD');
export const BILLING_CUSTOMER_ID = defineSearchAttributeKey('BillingCustomerId', 'KEYWORD');
export const BILLING_STATUS = defineSearchAttributeKey('BillingStatus', 'KEYWORD');

export const SEARCH_ATTRIBUTE_FLAGS = [BILLING_ACCOUNT_ID, BILLING_CUSTOMER_ID, BILLING_STATUS].flatMap((key) => [
  '--search-attribute',
  `${key.name}=Keyword`,
]);
