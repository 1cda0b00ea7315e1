import { z } from 'zod';
import { unixTime } from '../http/validation';
import { currencyCode } from '../lib/iso';

/** Days in the revenue series: today (UTC) and the 29 before it. */
export const REVENUE_DAYS = 30;

const cents = z.number().int().describe('Cents');

export const currencyOverviewSchema = z
  .object({
    currency: currencyCode,
    mrr: cents.describe(
      'Monthly recurring revenue in cents: what active and past_due subscriptions bill per month after their recurring discounts, each item normalised to a month and rounded half up; a subscription set to end counts 0 (docs/api.md, "MRR")',
    ),
    active_subscriptions: z.number().int().describe('Subscriptions active or past_due'),
    revenue: z
      .object({
        total: cents.describe('Succeeded payments minus succeeded refunds over the 30 days'),
        daily: z
          .array(z.object({ date: z.string().describe('UTC day, YYYY-MM-DD'), amount: cents }))
          .describe('One entry per UTC day, oldest first, 0 on days with nothing'),
      })
      .describe('Revenue of the last 30 UTC days, today included'),
    failed_payments: z.number().int().describe('Payments that failed in the same 30 days'),
    open_invoices: z.object({
      count: z.number().int(),
      amount_due: cents.describe('What is left to pay on them'),
    }),
    past_due_invoices: z
      .object({ count: z.number().int(), amount_due: cents })
      .describe('Open invoices past their due date, or whose automatic collection has failed'),
    past_due_payment_plans: z.number().int().describe('Payment plans in status past_due'),
  })
  .meta({ id: 'CurrencyOverview' });

export const overviewSchema = z
  .object({
    object: z.literal('overview'),
    generated: unixTime.describe('When the figures were read'),
    revenue_start: unixTime.describe('Start of the revenue window: 00:00 UTC, 29 days before today'),
    currencies: z
      .array(currencyOverviewSchema)
      .describe('One entry per currency with any figure, by code; a fresh account answers USD with zeros'),
  })
  .meta({ id: 'Overview' });

export type OverviewObject = z.output<typeof overviewSchema>;
export type CurrencyOverview = z.output<typeof currencyOverviewSchema>;
