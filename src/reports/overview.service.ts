import type { Db } from '../db/prisma';
import { currentTime } from '../lib/clock-time';
import { toUnixSeconds } from '../lib/time';
import { DAY_MS } from '../lib/durations';
import { dailyLedger, openInvoices, pastDuePlans, recurringFigures } from './overview.records';
import { REVENUE_DAYS, type CurrencyOverview, type OverviewObject } from './overview.schemas';

/** The contract's currency (spec, "Price attributes"): what a fresh account's zeros are in. */
const DEFAULT_CURRENCY = 'USD';

/** 00:00 UTC of the day `days` before the day of `now`. */
function utcDayStart(now: Date, days: number): Date {
  return new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS - days * DAY_MS);
}

/** The UTC days of the window, oldest first, as `YYYY-MM-DD`. */
function windowDays(start: Date): string[] {
  return Array.from({ length: REVENUE_DAYS }, (_, n) =>
    new Date(start.getTime() + n * DAY_MS).toISOString().slice(0, 10),
  );
}

/**
 * The home screen's figures per currency (docs/api.md, "Reports"). The four aggregates are read
 * side by side, not in one snapshot: a payment settling between them may show in one and not yet
 * in another, which a dashboard refreshed every minute can live with.
 */
export async function getOverview(prisma: Db, accountId: string, now = currentTime()): Promise<OverviewObject> {
  const start = utcDayStart(now, REVENUE_DAYS - 1);
  const end = new Date(start.getTime() + REVENUE_DAYS * DAY_MS);
  const [recurring, ledger, invoices, plans] = await Promise.all([
    recurringFigures(prisma, accountId),
    dailyLedger(prisma, accountId, start, end),
    openInvoices(prisma, accountId, now),
    pastDuePlans(prisma, accountId),
  ]);

  const days = windowDays(start);
  const figures = new Map<string, CurrencyOverview>();
  const of = (currency: string): CurrencyOverview => {
    let figure = figures.get(currency);
    if (!figure) {
      figure = {
        currency,
        mrr: 0,
        active_subscriptions: 0,
        revenue: { total: 0, daily: days.map((date) => ({ date, amount: 0 })) },
        failed_payments: 0,
        open_invoices: { count: 0, amount_due: 0 },
        past_due_invoices: { count: 0, amount_due: 0 },
        past_due_payment_plans: 0,
      };
      figures.set(currency, figure);
    }
    return figure;
  };

  for (const row of recurring) {
    const figure = of(row.currency);
    figure.mrr = Number(row.mrr);
    figure.active_subscriptions = row.active_subscriptions;
  }
  for (const row of ledger) {
    const figure = of(row.currency);
    const day = figure.revenue.daily.find((entry) => entry.date === row.day);
    if (day) day.amount = Number(row.revenue);
    figure.revenue.total += Number(row.revenue);
    figure.failed_payments += row.failed_payments;
  }
  for (const row of invoices) {
    const figure = of(row.currency);
    figure.open_invoices = { count: row.open_count, amount_due: Number(row.open_amount) };
    figure.past_due_invoices = { count: row.past_due_count, amount_due: Number(row.past_due_amount) };
  }
  for (const row of plans) of(row.currency).past_due_payment_plans = row.past_due_count;
  if (figures.size === 0) of(DEFAULT_CURRENCY);

  return {
    object: 'overview',
    generated: toUnixSeconds(now),
    revenue_start: toUnixSeconds(start),
    currencies: [...figures.values()].sort((a, b) => a.currency.localeCompare(b.currency)),
  };
}
