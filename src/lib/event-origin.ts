/**
 * The customer-facing page a change was asked for on, carried as `origin` in the `data` of the events
 * it raises (docs/decisions.md §38). Absent on events of the API, the dashboard and the billing engine,
 * whose `reason`/`initiated_by` the contract defines. Pure: the subscription workflow's bundle imports it.
 */
export const EVENT_ORIGINS = ['customer_portal', 'hosted_checkout', 'hosted_invoice_page'] as const;
export type EventOrigin = (typeof EVENT_ORIGINS)[number];

/** `data` with `origin` added when there is one (the same object otherwise). */
export function withOrigin<T extends object>(
  data: T,
  origin: EventOrigin | undefined,
): T | (T & { origin: EventOrigin }) {
  return origin ? { ...data, origin } : data;
}
