/**
 * What started an invoice's payment, recorded with its transaction when the attempt is opened (docs/api.md,
 * transactions: `origin`), so that the support report, the dashboard and the "why" box say what the payment
 * was rather than guess it from the attempt's number (a customer paying on the hosted invoice page after a
 * declined renewal is attempt 2, and no dunning retry). Pure: the subscription workflow's bundle imports it.
 *
 * - `api`: `PUT /invoices/{id}` with an API key; `dashboard`: the same from a dashboard session.
 * - `hosted_invoice_page`, `hosted_checkout`: the customer, on that page (docs/decisions.md §38).
 * - `subscription_period`: attempt 1 of a subscription period's invoice (its first invoice or a renewal), made
 *   by `POST /subscriptions` or the subscription's workflow.
 * - `dunning_retry`: a retry of the workflow's dunning schedule, with its number in `dunning_retry`.
 * - `charge_after_resume`: the charge a resume makes of an invoice whose dunning had paused the subscription.
 * - `subscription_change`: an invoice made at once by a change or an ending (`always_invoice`, prorate).
 */
export const TRANSACTION_ORIGINS = [
  'api',
  'dashboard',
  'hosted_invoice_page',
  'hosted_checkout',
  'subscription_period',
  'dunning_retry',
  'charge_after_resume',
  'subscription_change',
] as const;
export type TransactionOrigin = (typeof TRANSACTION_ORIGINS)[number];

/** The origin of an attempt, and for a dunning retry its number in its round (1 for the first retry). */
export interface ChargeOrigin {
  origin: TransactionOrigin;
  dunningRetry?: number;
}
