import { formatMoney } from '../lib/money';
import { markdownLines as markdown } from '../../workflows/summaries';
import { customerEmailHash } from './email-hash';
import { BILLING_CUSTOMER_EMAIL_HASH } from './search-attributes';

/**
 * What a workflow shows in the Temporal Web UI from its start (static summary and details) and the
 * customer-email search attribute, so that a support agent starting from an email finds the workflow
 * and reads what it bills without opening the API. The summary and details are payloads, encrypted
 * like the rest (src/temporal/payload-codec.ts), but the Web UI renders them decoded through its
 * `/render?content=...` URLs, which its server and proxies may log: they name the customer by id only,
 * never by name or email (docs/operations.md, "Customer data in Temporal"). The attribute is a keyed
 * hash of the email.
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

/** The customer as a display knows it: its id, and its email for the search attribute's hash only. */
interface Customer {
  id: string;
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

function customerLines(accountId: string, customer: Customer): string[] {
  return [`**Customer**: ${customer.id}`, `**Account**: ${accountId}`];
}

/** `cus_...: Pro 2 x $25.00 monthly`, with the items, dates and payment method in the details (Markdown). */
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
    staticSummary: `${input.customer.id}: ${items.join(' + ')} ${every}`,
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

/** `cus_...: $500.00 in 5 installments monthly`. */
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
    staticSummary: `${input.customer.id}: ${formatMoney(input.totalAmount, input.currency)} in ${input.installments} installments ${every}`,
    staticDetails: markdown([
      ...customerLines(input.accountId, input.customer),
      `**Plan**: ${formatMoney(input.totalAmount, input.currency)}, ${input.installments} installments ${every}; installment 1 is the deposit`,
    ]),
    customerEmail: input.customer.email?.toLowerCase() ?? null,
  };
}

/** What a workflow of no customer shows from its start: a summary for the list, details (Markdown) for its page. */
export type StartDisplay = Pick<WorkflowDisplay, 'staticSummary' | 'staticDetails'>;

/** A webhook delivery (relay or resend): ids only, and the retry schedule drawn for it. */
export function deliveryDisplay(input: {
  accountId: string;
  deliveryId: string;
  eventId: string;
  destinationId: string;
  retryDelaysMs: number[];
  /** The resend's number (docs/api.md, Webhooks: Resend); absent for the relay's delivery. */
  resend?: number;
}): StartDisplay {
  const what = input.resend ? `resend ${input.resend} of ${input.eventId}` : `webhook ${input.eventId}`;
  const delays = input.retryDelaysMs.map((ms) =>
    ms < 120_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`,
  );
  return {
    staticSummary: `${what} to ${input.destinationId}`,
    staticDetails: markdown([
      `**Delivery**: ${input.deliveryId}`,
      `**Event**: ${input.eventId}`,
      `**Destination**: ${input.destinationId}`,
      `**Account**: ${input.accountId}`,
      `**Retries after**: ${delays.join(', ')} (each from the end of the attempt before)`,
    ]),
  };
}

/** A customer email's workflow (docs/decisions.md §30): the event it answers or the reminder, by id. */
export function emailDisplay(input: {
  accountId: string;
  about: string;
  eventId?: string;
  emailId?: string;
}): StartDisplay {
  return {
    staticSummary: `email for ${input.about}`,
    staticDetails: markdown([
      ...(input.eventId ? [`**Event**: ${input.eventId} (${input.about})`] : [`**About**: ${input.about}`]),
      ...(input.emailId ? [`**Email**: ${input.emailId}`] : []),
      `**Account**: ${input.accountId}`,
      '**Sends**: once, by its Message-ID; the address and the text are in the emails table, not here',
    ]),
  };
}

/** A test clock's advance (docs/api.md, Test clocks). */
export function testClockDisplay(input: {
  accountId: string;
  clockId: string;
  fromMs: number;
  toMs: number;
}): StartDisplay {
  const at = (ms: number) => new Date(ms).toISOString();
  return {
    staticSummary: `test clock ${input.clockId} advancing to ${at(input.toMs)}`,
    staticDetails: markdown([
      `**Clock**: ${input.clockId}`,
      `**Account**: ${input.accountId}`,
      `**Advance**: ${at(input.fromMs)} to ${at(input.toMs)}`,
      '**Does**: tells every subscription and payment plan on the clock, waits for each to catch up, then marks the clock ready',
    ]),
  };
}

/** The retention sweep the schedule starts (docs/decisions.md §24). */
export function retentionDisplay(everyMs: number): StartDisplay {
  return {
    staticSummary: `retention sweep every ${Math.round(everyMs / 60_000)} min`,
    staticDetails: markdown([
      '**Deletes**: events, webhook delivery logs, idempotency keys and emails past their retention periods (RETENTION_*)',
      '**How**: one activity per batch of at most 1,000 rows; a sweep still running when the next is due is not started twice',
    ]),
  };
}

/** The payment reconciliation the schedule starts (docs/decisions.md §40). */
export function reconciliationDisplay(everyMs: number): StartDisplay {
  return {
    staticSummary: `payment reconciliation every ${Math.round(everyMs / 1000)} s`,
    staticDetails: markdown([
      "**Asks**: the processor, under each attempt's own key, about invoice payments whose outcome is unknown or pending",
      '**Never**: charges under a new key; an attempt the processor never received is sent again under its own',
    ]),
  };
}
