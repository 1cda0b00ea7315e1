-- CreateTable
CREATE TABLE "event_counts" (
    "id" BIGSERIAL NOT NULL,
    "account_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "n" BIGINT NOT NULL,
    "folded" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "event_counts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "revenue_days" (
    "id" BIGSERIAL NOT NULL,
    "account_id" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "currency" TEXT NOT NULL,
    "revenue" BIGINT NOT NULL,
    "failed_payments" BIGINT NOT NULL,
    "n" BIGINT NOT NULL,
    "folded" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "revenue_days_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "event_counts_account_id_type_day_idx" ON "event_counts"("account_id", "type", "day");

-- CreateIndex
CREATE INDEX "event_counts_folded_account_id_type_day_idx" ON "event_counts"("folded", "account_id", "type", "day");

-- CreateIndex
CREATE INDEX "revenue_days_account_id_day_currency_idx" ON "revenue_days"("account_id", "day", "currency");

-- CreateIndex
CREATE INDEX "revenue_days_folded_account_id_day_currency_idx" ON "revenue_days"("folded", "account_id", "day", "currency");


-- The home's revenue window kept in step with the ledger (docs/decisions.md §33), appended and folded as the
-- list counters are (§23): a statement-level trigger on transactions appends one row per (account, UTC day
-- of creation, currency) with the statement's net change, in the writing transaction, and updates nothing.
-- Revenue is what GET /reports/overview always summed: succeeded payments and refunds (refunds negative);
-- failed_payments the failed payments; n the payments and refunds of any status (a currency is listed while
-- it has one in the window).
CREATE FUNCTION sum_revenue_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO revenue_days (account_id, day, currency, revenue, failed_payments, n)
    SELECT account_id, (created_at AT TIME ZONE 'UTC')::date, currency,
      coalesce(sum(amount) FILTER (WHERE status = 'succeeded'), 0),
      count(*) FILTER (WHERE type = 'payment' AND status = 'failed'), count(*)
    FROM new_rows WHERE type IN ('payment', 'refund') GROUP BY 1, 2, 3;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO revenue_days (account_id, day, currency, revenue, failed_payments, n)
    SELECT account_id, day, currency, sum(revenue), sum(failed), sum(n) FROM (
      SELECT account_id, (created_at AT TIME ZONE 'UTC')::date AS day, currency,
        CASE WHEN status = 'succeeded' THEN amount ELSE 0 END AS revenue,
        CASE WHEN type = 'payment' AND status = 'failed' THEN 1 ELSE 0 END AS failed, 1 AS n
      FROM new_rows WHERE type IN ('payment', 'refund')
      UNION ALL
      SELECT account_id, (created_at AT TIME ZONE 'UTC')::date, currency,
        CASE WHEN status = 'succeeded' THEN -amount ELSE 0 END,
        CASE WHEN type = 'payment' AND status = 'failed' THEN -1 ELSE 0 END, -1
      FROM old_rows WHERE type IN ('payment', 'refund')
    ) change GROUP BY 1, 2, 3 HAVING sum(revenue) <> 0 OR sum(failed) <> 0 OR sum(n) <> 0;
  ELSE
    INSERT INTO revenue_days (account_id, day, currency, revenue, failed_payments, n)
    SELECT account_id, (created_at AT TIME ZONE 'UTC')::date, currency,
      -coalesce(sum(amount) FILTER (WHERE status = 'succeeded'), 0),
      -count(*) FILTER (WHERE type = 'payment' AND status = 'failed'), -count(*)
    FROM old_rows WHERE type IN ('payment', 'refund') GROUP BY 1, 2, 3;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER transactions_revenue_insert AFTER INSERT ON transactions REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sum_revenue_rows();
CREATE TRIGGER transactions_revenue_update AFTER UPDATE ON transactions REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sum_revenue_rows();
CREATE TRIGGER transactions_revenue_delete AFTER DELETE ON transactions REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sum_revenue_rows();

INSERT INTO revenue_days (account_id, day, currency, revenue, failed_payments, n, folded)
SELECT account_id, (created_at AT TIME ZONE 'UTC')::date, currency,
  coalesce(sum(amount) FILTER (WHERE status = 'succeeded'), 0),
  count(*) FILTER (WHERE type = 'payment' AND status = 'failed'), count(*), true
FROM transactions WHERE type IN ('payment', 'refund') GROUP BY 1, 2, 3;

-- GET /events' exact count (docs/decisions.md §34), appended and folded the same way: a statement-level
-- trigger appends each insert's and delete's rows per (account, type, UTC day). The outbox's rows are
-- updated on every dispatch (dispatched_at), so updates are counted by a row trigger whose WHEN (evaluated
-- without calling it) passes only a change of account, type or day, which the service never makes.
CREATE FUNCTION count_event_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO event_counts (account_id, type, day, n)
    SELECT account_id, type, (created_at AT TIME ZONE 'UTC')::date, count(*) FROM new_rows GROUP BY 1, 2, 3;
  ELSE
    INSERT INTO event_counts (account_id, type, day, n)
    SELECT account_id, type, (created_at AT TIME ZONE 'UTC')::date, -count(*) FROM old_rows GROUP BY 1, 2, 3;
  END IF;
  RETURN NULL;
END
$$;

CREATE FUNCTION recount_event_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO event_counts (account_id, type, day, n) VALUES
    (OLD.account_id, OLD.type, (OLD.created_at AT TIME ZONE 'UTC')::date, -1),
    (NEW.account_id, NEW.type, (NEW.created_at AT TIME ZONE 'UTC')::date, 1);
  RETURN NULL;
END
$$;

CREATE TRIGGER events_count_insert AFTER INSERT ON events REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION count_event_rows();
CREATE TRIGGER events_count_delete AFTER DELETE ON events REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION count_event_rows();
CREATE TRIGGER events_count_update AFTER UPDATE ON events FOR EACH ROW
  WHEN (OLD.account_id IS DISTINCT FROM NEW.account_id OR OLD.type IS DISTINCT FROM NEW.type
    OR (OLD.created_at AT TIME ZONE 'UTC')::date IS DISTINCT FROM (NEW.created_at AT TIME ZONE 'UTC')::date)
  EXECUTE FUNCTION recount_event_row();

INSERT INTO event_counts (account_id, type, day, n, folded)
SELECT account_id, type, (created_at AT TIME ZONE 'UTC')::date, count(*), true FROM events GROUP BY 1, 2, 3;

-- Folds revenue_days and event_counts as fold_counters() folds the list counters (the same rules: one
-- statement per table, a batch of keys, their rows deleted and their sum inserted folded), under the same
-- advisory lock, which the worker's call of both in one transaction holds once (src/db/counter-folding.ts).
CREATE FUNCTION fold_dashboard_counters(batch integer) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  removed bigint := 0;
  step bigint;
BEGIN
  IF NOT pg_try_advisory_xact_lock(hashtext('fold_counters')) THEN
    RETURN 0;
  END IF;

  WITH keys AS (
    SELECT DISTINCT account_id, day, currency FROM revenue_days WHERE NOT folded LIMIT batch
  ), gone AS (
    DELETE FROM revenue_days r USING keys k
    WHERE r.account_id = k.account_id AND r.day = k.day AND r.currency = k.currency
    RETURNING r.account_id, r.day, r.currency, r.revenue, r.failed_payments, r.n
  ), kept AS (
    INSERT INTO revenue_days (account_id, day, currency, revenue, failed_payments, n, folded)
    SELECT account_id, day, currency, sum(revenue), sum(failed_payments), sum(n), true FROM gone GROUP BY 1, 2, 3
    HAVING sum(revenue) <> 0 OR sum(failed_payments) <> 0 OR sum(n) <> 0
  )
  SELECT count(*) INTO step FROM gone;
  removed := removed + step;

  WITH keys AS (
    SELECT DISTINCT account_id, type, day FROM event_counts WHERE NOT folded LIMIT batch
  ), gone AS (
    DELETE FROM event_counts c USING keys k
    WHERE c.account_id = k.account_id AND c.type = k.type AND c.day = k.day
    RETURNING c.account_id, c.type, c.day, c.n
  ), kept AS (
    INSERT INTO event_counts (account_id, type, day, n, folded)
    SELECT account_id, type, day, sum(n), true FROM gone GROUP BY 1, 2, 3 HAVING sum(n) <> 0
  )
  SELECT count(*) INTO step FROM gone;
  removed := removed + step;

  RETURN removed;
END
$$;
