/**
 * Billing-date arithmetic on UTC milliseconds. Pure and deterministic, so the subscription workflow
 * can use it as it is. Calendar intervals (month, year) count in UTC calendar months: a period that
 * starts on an anchor's day of month keeps that day, and an anchor on the 29th, 30th or 31st bills on
 * the last day of shorter months, then returns to its own day (Jan 31 -> Feb 29 -> Mar 31).
 */
import { DAY_MS, WEEK_MS } from '../lib/durations';

export const BILLING_INTERVALS = ['day', 'week', 'month', 'year'] as const;
export type BillingInterval = (typeof BILLING_INTERVALS)[number];

function daysInMonth(year: number, monthIndex: number): number {
  return new Date(Date.UTC(year, monthIndex + 1, 0)).getUTCDate();
}

/** `anchor` plus `months` calendar months, on the anchor's day of month clamped to the target month, same time of day. */
export function addMonths(anchorMs: number, months: number): number {
  const anchor = new Date(anchorMs);
  const monthIndex = anchor.getUTCMonth() + months;
  const year = anchor.getUTCFullYear() + Math.floor(monthIndex / 12);
  const month = ((monthIndex % 12) + 12) % 12;
  const day = Math.min(anchor.getUTCDate(), daysInMonth(year, month));
  return Date.UTC(
    year,
    month,
    day,
    anchor.getUTCHours(),
    anchor.getUTCMinutes(),
    anchor.getUTCSeconds(),
    anchor.getUTCMilliseconds(),
  );
}

/** `anchor` plus `count` intervals. */
export function addIntervals(anchorMs: number, interval: BillingInterval, count: number): number {
  switch (interval) {
    case 'day':
      return anchorMs + count * DAY_MS;
    case 'week':
      return anchorMs + count * WEEK_MS;
    case 'month':
      return addMonths(anchorMs, count);
    case 'year':
      return addMonths(anchorMs, count * 12);
  }
}

export interface BillingCycle {
  /** Start of period 0 (the first full invoice); its day of month is the billing day for month and year intervals. */
  anchorMs: number;
  interval: BillingInterval;
  /** Intervals per period (a quarterly price is month x 3). */
  intervalCount: number;
}

/**
 * Start of period `index` (0 = the anchor). Always computed from the anchor rather than from the
 * previous period, so clamping in a short month never drifts the billing day.
 */
export function periodStart(cycle: BillingCycle, index: number): number {
  return addIntervals(cycle.anchorMs, cycle.interval, index * cycle.intervalCount);
}

export function periodBounds(cycle: BillingCycle, index: number): { start: number; end: number } {
  return { start: periodStart(cycle, index), end: periodStart(cycle, index + 1) };
}
