import { queryRows, type Queryable, type Statement } from '../db/sql';

/**
 * The home screen's figures (GET /reports/overview), each aggregated by PostgreSQL per currency and
 * scoped to one account through its `(account_id, ...)` indexes (docs/api.md, "Reports"). Sums are
 * read as text: they are bigint in the database.
 */

/**
 * MRR (docs/api.md, "MRR"): what each active or past_due subscription bills per month before tax, summed per
 * currency. Each item is `unit_amount * quantity * P / (12 * interval_count)` with P the intervals in a year
 * (year 1, month 12, week 52, day 365), rounded half up to the cent per item; less the subscription's recurring
 * discount, normalised the same way: the one its period invoices take (its own, else its customer's, as
 * `applicableDiscount` chooses it), while it covers the current period, `percent_off` of the items' sum
 * rounded half up as an invoice rounds it, or `amount_off` (in the subscription's currency) up to that sum; a
 * `once` discount takes nothing off the rate. Never below zero. A subscription that will end (cancel at period
 * end, `cancel_at` or `end_date` set) counts 0, as Stripe drops it from MRR when the cancellation is asked;
 * it is still one of `active_subscriptions`. `(2 * x * P + 12 * n) / (24 * n)` is x * P / (12 * n) rounded
 * half up in integers.
 */
const RECURRING: Statement = {
  name: 'reports_recurring',
  text: `SELECT s.currency,
      count(*)::int AS active_subscriptions,
      coalesce(sum(greatest(0, g.monthly - (2 * coalesce(d.off, 0) * y.per_year + 12 * s.interval_count) / (24 * s.interval_count)))
        FILTER (WHERE NOT s.cancel_at_period_end AND s.cancel_at IS NULL AND s.end_date IS NULL), 0)::text AS mrr
    FROM subscriptions s
    CROSS JOIN LATERAL (SELECT CASE s.interval WHEN 'year' THEN 1 WHEN 'month' THEN 12 WHEN 'week' THEN 52
      WHEN 'day' THEN 365 ELSE 0 END AS per_year) y
    CROSS JOIN LATERAL (
      SELECT coalesce(sum((2 * p.unit_amount::bigint * i.quantity * y.per_year + 12 * s.interval_count) / (24 * s.interval_count)), 0)::bigint AS monthly,
        coalesce(sum(p.unit_amount::bigint * i.quantity), 0)::bigint AS period_amount
      FROM subscription_items i
      JOIN prices p ON p.id = i.price_id AND p.account_id = s.account_id
      WHERE i.subscription_id = s.id AND i.account_id = s.account_id) g
    LEFT JOIN LATERAL (
      SELECT CASE
          WHEN dc.coupon->>'duration' = 'once' THEN 0
          WHEN dc.coupon->>'percent_off' IS NOT NULL
            THEN (2 * g.period_amount * round((dc.coupon->>'percent_off')::numeric * 100)::bigint + 10000) / 20000
          WHEN dc.coupon->>'currency' = s.currency THEN least((dc.coupon->>'amount_off')::bigint, g.period_amount)
          ELSE 0
        END AS off
      FROM discounts dc
      WHERE dc.account_id = s.account_id AND dc.removed_at IS NULL AND dc.used_invoice_id IS NULL
        AND (dc.subscription_id = s.id OR (dc.customer_id = s.customer_id AND dc.subscription_id IS NULL))
        AND (dc."end" IS NULL OR dc."end" > coalesce(s.current_period_start, s.start_date))
      ORDER BY (dc.subscription_id IS NULL), dc.created_at DESC, dc.id
      LIMIT 1) d ON true
    WHERE s.account_id = $1 AND s.status IN ('active', 'past_due')
    GROUP BY s.currency`,
};

export interface RecurringRow {
  currency: string;
  active_subscriptions: number;
  mrr: string;
}

export function recurringFigures(db: Queryable, accountId: string): Promise<RecurringRow[]> {
  return queryRows<RecurringRow>(db, RECURRING, [accountId]);
}

/**
 * Payments and refunds created in [from, to), by UTC day: revenue is what succeeded (refunds are
 * negative amounts), failed counts the payments that failed. Days without one are not rows. Read from
 * revenue_days, the per-day sums the triggers on transactions keep in the writing transaction
 * (docs/decisions.md §33): at most a few rows per day and currency, whatever the account's charges.
 */
const DAILY_LEDGER: Statement = {
  name: 'reports_daily_revenue',
  text: `SELECT r.currency, to_char(r.day, 'YYYY-MM-DD') AS day, sum(r.revenue)::text AS revenue,
      sum(r.failed_payments)::int AS failed_payments
    FROM revenue_days r
    WHERE r.account_id = $1 AND r.day >= $2::date AND r.day < $3::date
    GROUP BY r.currency, r.day
    HAVING sum(r.n) > 0`,
};

export interface DailyLedgerRow {
  currency: string;
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  revenue: string;
  failed_payments: number;
}

/** The UTC day of a time, as the statement above takes its bounds. */
export const utcDate = (time: Date) => time.toISOString().slice(0, 10);

/** `from` and `to` are UTC midnights (whole days). */
export function dailyLedger(db: Queryable, accountId: string, from: Date, to: Date): Promise<DailyLedgerRow[]> {
  return queryRows<DailyLedgerRow>(db, DAILY_LEDGER, [accountId, utcDate(from), utcDate(to)]);
}

/**
 * Open invoices and what is left to pay on them; past due among them: a due date before `now`, or
 * an automatic collection that has failed at least once (its invoice was due when finalized).
 */
const OPEN_INVOICES: Statement = {
  name: 'reports_open_invoices',
  text: `SELECT v.currency,
      count(*)::int AS open_count,
      coalesce(sum(v.amount_due - v.amount_paid), 0)::text AS open_amount,
      count(*) FILTER (WHERE v.past_due)::int AS past_due_count,
      coalesce(sum(v.amount_due - v.amount_paid) FILTER (WHERE v.past_due), 0)::text AS past_due_amount
    FROM (
      SELECT i.currency, i.amount_due, i.amount_paid,
        (i.due_date < $2 OR (i.collection_method = 'charge_automatically' AND i.attempt_count > 0)) AS past_due
      FROM invoices i
      WHERE i.account_id = $1 AND i.status = 'open'
    ) v
    GROUP BY v.currency`,
};

export interface OpenInvoicesRow {
  currency: string;
  open_count: number;
  open_amount: string;
  past_due_count: number;
  past_due_amount: string;
}

export function openInvoices(db: Queryable, accountId: string, now: Date): Promise<OpenInvoicesRow[]> {
  return queryRows<OpenInvoicesRow>(db, OPEN_INVOICES, [accountId, now]);
}

const PAST_DUE_PLANS: Statement = {
  name: 'reports_past_due_plans',
  text: `SELECT pp.currency, count(*)::int AS past_due_count
    FROM payment_plans pp
    WHERE pp.account_id = $1 AND pp.status = 'past_due'
    GROUP BY pp.currency`,
};

export interface PastDuePlansRow {
  currency: string;
  past_due_count: number;
}

export function pastDuePlans(db: Queryable, accountId: string): Promise<PastDuePlansRow[]> {
  return queryRows<PastDuePlansRow>(db, PAST_DUE_PLANS, [accountId]);
}

/** The statements, for EXPLAIN in the tests (each must read through an account-scoped index). */
export const OVERVIEW_STATEMENTS = { RECURRING, DAILY_LEDGER, OPEN_INVOICES, PAST_DUE_PLANS };
