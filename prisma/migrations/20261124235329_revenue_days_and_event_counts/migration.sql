-- CreateTable
CREATE TABLE "event_counts" (
    "account_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "slot" SMALLINT NOT NULL,
    "n" BIGINT NOT NULL,

    CONSTRAINT "event_counts_pkey" PRIMARY KEY ("account_id","type","day","slot")
);

-- CreateTable
CREATE TABLE "revenue_days" (
    "account_id" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "currency" TEXT NOT NULL,
    "slot" SMALLINT NOT NULL,
    "revenue" BIGINT NOT NULL,
    "failed_payments" BIGINT NOT NULL,
    "n" BIGINT NOT NULL,

    CONSTRAINT "revenue_days_pkey" PRIMARY KEY ("account_id","day","currency","slot")
);


-- The home's revenue window kept in step with the ledger (docs/decisions.md §31): statement-level triggers
-- on transactions add each statement's net change per (account, UTC day of creation, currency) in one
-- upsert, in the writing transaction, keys in a fixed order. Revenue is what GET /reports/overview has
-- always summed: succeeded payments and refunds (refunds negative); failed_payments the failed payments;
-- n the payments and refunds of any status (a currency is listed while it has one in the window). The slot
-- is the writing connection's (its backend pid), so two settlements at once meet on a row only when their
-- connections share a slot; a figure is the sum over the slots.
CREATE FUNCTION sum_revenue_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO revenue_days AS r (account_id, day, currency, slot, revenue, failed_payments, n)
    SELECT account_id, (created_at AT TIME ZONE 'UTC')::date, currency, (pg_backend_pid() & 7)::smallint,
      coalesce(sum(amount) FILTER (WHERE status = 'succeeded'), 0),
      count(*) FILTER (WHERE type = 'payment' AND status = 'failed'), count(*)
    FROM new_rows WHERE type IN ('payment', 'refund') GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (account_id, day, currency, slot) DO UPDATE SET revenue = r.revenue + EXCLUDED.revenue,
      failed_payments = r.failed_payments + EXCLUDED.failed_payments, n = r.n + EXCLUDED.n;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO revenue_days AS r (account_id, day, currency, slot, revenue, failed_payments, n)
    SELECT account_id, day, currency, (pg_backend_pid() & 7)::smallint, sum(revenue), sum(failed), sum(n) FROM (
      SELECT account_id, (created_at AT TIME ZONE 'UTC')::date AS day, currency,
        CASE WHEN status = 'succeeded' THEN amount ELSE 0 END AS revenue,
        CASE WHEN type = 'payment' AND status = 'failed' THEN 1 ELSE 0 END AS failed, 1 AS n
      FROM new_rows WHERE type IN ('payment', 'refund')
      UNION ALL
      SELECT account_id, (created_at AT TIME ZONE 'UTC')::date, currency,
        CASE WHEN status = 'succeeded' THEN -amount ELSE 0 END,
        CASE WHEN type = 'payment' AND status = 'failed' THEN -1 ELSE 0 END, -1
      FROM old_rows WHERE type IN ('payment', 'refund')
    ) change GROUP BY 1, 2, 3 HAVING sum(revenue) <> 0 OR sum(failed) <> 0 OR sum(n) <> 0 ORDER BY 1, 2, 3
    ON CONFLICT (account_id, day, currency, slot) DO UPDATE SET revenue = r.revenue + EXCLUDED.revenue,
      failed_payments = r.failed_payments + EXCLUDED.failed_payments, n = r.n + EXCLUDED.n;
  ELSE
    INSERT INTO revenue_days AS r (account_id, day, currency, slot, revenue, failed_payments, n)
    SELECT account_id, (created_at AT TIME ZONE 'UTC')::date, currency, (pg_backend_pid() & 7)::smallint,
      -coalesce(sum(amount) FILTER (WHERE status = 'succeeded'), 0),
      -count(*) FILTER (WHERE type = 'payment' AND status = 'failed'), -count(*)
    FROM old_rows WHERE type IN ('payment', 'refund') GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (account_id, day, currency, slot) DO UPDATE SET revenue = r.revenue + EXCLUDED.revenue,
      failed_payments = r.failed_payments + EXCLUDED.failed_payments, n = r.n + EXCLUDED.n;
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

INSERT INTO revenue_days (account_id, day, currency, slot, revenue, failed_payments, n)
SELECT account_id, (created_at AT TIME ZONE 'UTC')::date, currency, 0,
  coalesce(sum(amount) FILTER (WHERE status = 'succeeded'), 0),
  count(*) FILTER (WHERE type = 'payment' AND status = 'failed'), count(*)
FROM transactions WHERE type IN ('payment', 'refund') GROUP BY 1, 2, 3;

-- GET /events' exact count (docs/decisions.md §32): a statement-level trigger adds each insert's and
-- delete's rows per (account, type, UTC day) in one upsert, in the writing transaction, keys in a fixed
-- order; the slot is the writing connection's, as on revenue_days. The outbox's rows are updated on every
-- dispatch (dispatched_at), so updates are counted by a row trigger whose WHEN (evaluated without calling
-- it) passes only a change of account, type or day, which the service never makes.
CREATE FUNCTION count_event_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO event_counts AS c (account_id, type, day, slot, n)
    SELECT account_id, type, (created_at AT TIME ZONE 'UTC')::date, (pg_backend_pid() & 7)::smallint, count(*)
    FROM new_rows GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (account_id, type, day, slot) DO UPDATE SET n = c.n + EXCLUDED.n;
  ELSE
    INSERT INTO event_counts AS c (account_id, type, day, slot, n)
    SELECT account_id, type, (created_at AT TIME ZONE 'UTC')::date, (pg_backend_pid() & 7)::smallint, -count(*)
    FROM old_rows GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (account_id, type, day, slot) DO UPDATE SET n = c.n + EXCLUDED.n;
  END IF;
  RETURN NULL;
END
$$;

CREATE FUNCTION recount_event_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO event_counts AS c (account_id, type, day, slot, n)
  VALUES (OLD.account_id, OLD.type, (OLD.created_at AT TIME ZONE 'UTC')::date, (pg_backend_pid() & 7)::smallint, -1)
  ON CONFLICT (account_id, type, day, slot) DO UPDATE SET n = c.n + EXCLUDED.n;
  INSERT INTO event_counts AS c (account_id, type, day, slot, n)
  VALUES (NEW.account_id, NEW.type, (NEW.created_at AT TIME ZONE 'UTC')::date, (pg_backend_pid() & 7)::smallint, 1)
  ON CONFLICT (account_id, type, day, slot) DO UPDATE SET n = c.n + EXCLUDED.n;
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

INSERT INTO event_counts (account_id, type, day, slot, n)
SELECT account_id, type, (created_at AT TIME ZONE 'UTC')::date, 0, count(*)
FROM events GROUP BY 1, 2, 3;
