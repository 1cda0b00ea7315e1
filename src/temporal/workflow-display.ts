import { formatMoney } from '../lib/money';
import { customerEmailHash } from './email-hash';
import { BILLING_CUSTOMER_EMAIL_HASH } from './search-attributes';

/**
 * What a workflow shows in the Temporal Web UI from its start (static summary and details) and the
 * customer-email search attribute, so that a support agent starting from an email finds the workflow
 * and reads what it bills without opening the API. The summary and details are payloads, encrypted
 * like the rest (src/temporal/payload-codec.ts); the attribute is a keyed hash of the email.
 */
export interface WorkflowDisplay {
  staticSummary: string;
  staticDetails: string;
  customerEmail: string | null;
}

/** `monthly`, `every 3 months`, `weekly`. */
export function describeEvery(interval: string, count: number): string {
  const single: Record<string, string> = { day: 'daily', week: 'weekly', month: 'monthly', year: 'yearly' };
  return count === 1 ? (single[interval] ?? `every ${interval}`) : `every ${count} ${interval}s`;
}

interface Customer {
  id: string;
  name: string;
  email: string | null;
}

/** The start options that carry the display: static summary and details, and BillingCustomerEmailHash when the customer has an email. */
export function displayStartOptions(display: WorkflowDisplay) {
  return {
    staticSummary: display.staticSummary,
    staticDetails: display.staticDetails,
    emailHashAttribute: display.customerEmail
      ? [{ key: BILLING_CUSTOMER_EMAIL_HASH, value: customerEmailHash(display.customerEmail) }]
      : [],
  };
}

/**
 * Details as the Web UI renders them (Markdown): one paragraph a line, and `$` escaped, since the UI
 * reads `$...$` as math.
 */
function markdown(lines: string[]): string {
  return lines.map((line) => line.replace(/\$/g, '\\$')).join('\n\n');
}

function customerLines(accountId: string, customer: Customer): string[] {
  return [
    `**Customer**: ${customer.name} (${customer.id})${customer.email ? `, ${customer.email}` : ''}`,
    `**Account**: ${accountId}`,
  ];
}

/** `Acme: Pro 2 x $25.00 monthly, cus_...`, with the items, dates and payment method in the details (Markdown). */
export function subscriptionDisplay(input: {
  accountId: string;
  customer: Customer;
  items: { product: string; unitAmount: number; quantity: number }[];
  currency: string;
  interval: string;
  intervalCount: number;
  trialDays: number;
  startDate: number;
  collectionMethod: string;
  defaultPaymentMethodId: string | null;
}): WorkflowDisplay {
  const every = describeEvery(input.interval, input.intervalCount);
  const items = input.items.map(
    (item) => `${item.product} ${item.quantity} x ${formatMoney(item.unitAmount, input.currency)}`,
  );
  const total = input.items.reduce((sum, item) => sum + item.unitAmount * item.quantity, 0);
  return {
    staticSummary: `${input.customer.name}: ${items.join(' + ')} ${every}, ${input.customer.id}`,
    staticDetails: markdown([
      ...customerLines(input.accountId, input.customer),
      `**Bills**: ${formatMoney(total, input.currency)} ${every} before tax (${input.collectionMethod})`,
      ...items.map((item) => `- ${item}`),
      `**Starts**: ${new Date(input.startDate).toISOString()}${input.trialDays > 0 ? `, after a ${input.trialDays}-day trial` : ''}`,
      `**Payment method**: ${input.defaultPaymentMethodId ?? "the customer's default"}`,
    ]),
    customerEmail: input.customer.email?.toLowerCase() ?? null,
  };
}

/** `Acme: $500.00 in 5 installments monthly, cus_...`. */
export function paymentPlanDisplay(input: {
  accountId: string;
  customer: Customer;
  totalAmount: number;
  currency: string;
  installments: number;
  interval: string;
  intervalCount: number;
}): WorkflowDisplay {
  const every = describeEvery(input.interval, input.intervalCount);
  return {
    staticSummary: `${input.customer.name}: ${formatMoney(input.totalAmount, input.currency)} in ${input.installments} installments ${every}, ${input.customer.id}`,
    staticDetails: markdown([
      ...customerLines(input.accountId, input.customer),
      `**Plan**: ${formatMoney(input.totalAmount, input.currency)}, ${input.installments} installments ${every}; installment 1 is the deposit`,
    ]),
    customerEmail: input.customer.email?.toLowerCase() ?? null,
  };
}
