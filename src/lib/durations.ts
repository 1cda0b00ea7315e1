/**
 * Durations in milliseconds, defined here once. Pure (no import, no clock): workflow code imports it too.
 * Calendar arithmetic (months, years, a customer's time zone) is not this: see src/subscriptions/billing-dates.ts.
 */
export const SECOND_MS = 1_000;
export const MINUTE_MS = 60 * SECOND_MS;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;
export const WEEK_MS = 7 * DAY_MS;
/** A day in the API's Unix seconds. */
export const DAY_SECONDS = DAY_MS / SECOND_MS;
