import { WEEK_MS } from '../lib/durations';

/**
 * The money and dates of a plan, computed once at creation. Pure functions (no clock, no I/O).
 */

export type PlanInterval = 'week' | 'month';

/**
 * Splits `total` cents into `count` integer installments that add up exactly to it. The remainder
 * of the division goes one cent at a time to the first installments, so installment 1 (the deposit)
 * is the largest and no two installments differ by more than one cent.
 */
export function splitInstallments(total: number, count: number): number[] {
  if (!Number.isSafeInteger(total) || !Number.isSafeInteger(count) || count < 1 || total < count) {
    throw new RangeError(`Cannot split ${total} cents into ${count} non-zero installments.`);
  }
  const base = Math.floor(total / count);
  const remainder = total - base * count;
  return Array.from({ length: count }, (_, index) => base + (index < remainder ? 1 : 0));
}

function daysInMonth(year: number, monthIndex: number): number {
  return new Date(Date.UTC(year, monthIndex + 1, 0)).getUTCDate();
}

/** `months` calendar months after `start` (UTC), the day clamped to the month's last day (Jan 31 -> Feb 28). */
export function addMonths(start: Date, months: number): Date {
  const monthIndex = start.getUTCMonth() + months;
  const year = start.getUTCFullYear() + Math.floor(monthIndex / 12);
  const month = ((monthIndex % 12) + 12) % 12;
  const day = Math.min(start.getUTCDate(), daysInMonth(year, month));
  return new Date(
    Date.UTC(
      year,
      month,
      day,
      start.getUTCHours(),
      start.getUTCMinutes(),
      start.getUTCSeconds(),
      start.getUTCMilliseconds(),
    ),
  );
}

/**
 * Due date of each installment: installment n falls (n - 1) intervals after the start date. Every
 * date is computed from the start (not from the previous date), so a plan starting on the 31st is
 * due on the last day of shorter months and back on the 31st afterwards.
 */
export function dueDates(start: Date, count: number, interval: PlanInterval, intervalCount: number): Date[] {
  return Array.from({ length: count }, (_, index) =>
    interval === 'month'
      ? addMonths(start, index * intervalCount)
      : new Date(start.getTime() + index * intervalCount * WEEK_MS),
  );
}
