-- The ledger's two counters (balances, docs/decisions.md §23; the revenue window, §33) kept by one trigger per
-- operation instead of two: a ledger write called two PL/pgSQL functions, each reading the statement's
-- transition tables, and a charged creation writes the ledger twice (the entry, then its settling). One
-- function now appends both tables' rows in one statement (two writable CTEs over the same transition
-- tables); the rows appended are the ones the two functions appended, so counts and sums stay exact.
CREATE FUNCTION sum_ledger_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    WITH balances AS (
      INSERT INTO balance_sums (account_id, status, currency, amount, n)
      SELECT account_id, status, currency, sum(amount), count(*) FROM new_rows GROUP BY 1, 2, 3
    )
    INSERT INTO revenue_days (account_id, day, currency, revenue, failed_payments, n)
    SELECT account_id, (created_at AT TIME ZONE 'UTC')::date, currency,
      coalesce(sum(amount) FILTER (WHERE status = 'succeeded'), 0),
      count(*) FILTER (WHERE type = 'payment' AND status = 'failed'), count(*)
    FROM new_rows WHERE type IN ('payment', 'refund') GROUP BY 1, 2, 3;
  ELSIF TG_OP = 'UPDATE' THEN
    WITH balances AS (
      INSERT INTO balance_sums (account_id, status, currency, amount, n)
      SELECT account_id, status, currency, sum(amount), sum(n) FROM (
        SELECT account_id, status, currency, amount::numeric AS amount, 1 AS n FROM new_rows
        UNION ALL
        SELECT account_id, status, currency, -amount::numeric, -1 FROM old_rows
      ) change GROUP BY 1, 2, 3 HAVING sum(amount) <> 0 OR sum(n) <> 0
    )
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
    WITH balances AS (
      INSERT INTO balance_sums (account_id, status, currency, amount, n)
      SELECT account_id, status, currency, -sum(amount), -count(*) FROM old_rows GROUP BY 1, 2, 3
    )
    INSERT INTO revenue_days (account_id, day, currency, revenue, failed_payments, n)
    SELECT account_id, (created_at AT TIME ZONE 'UTC')::date, currency,
      -coalesce(sum(amount) FILTER (WHERE status = 'succeeded'), 0),
      -count(*) FILTER (WHERE type = 'payment' AND status = 'failed'), -count(*)
    FROM old_rows WHERE type IN ('payment', 'refund') GROUP BY 1, 2, 3;
  END IF;
  RETURN NULL;
END
$$;

DROP TRIGGER transactions_sum_insert ON transactions;
DROP TRIGGER transactions_sum_update ON transactions;
DROP TRIGGER transactions_sum_delete ON transactions;
DROP TRIGGER transactions_revenue_insert ON transactions;
DROP TRIGGER transactions_revenue_update ON transactions;
DROP TRIGGER transactions_revenue_delete ON transactions;
DROP FUNCTION sum_transaction_rows();
DROP FUNCTION sum_revenue_rows();

CREATE TRIGGER transactions_counters_insert AFTER INSERT ON transactions REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sum_ledger_rows();
-- No column list on the update's trigger: PostgreSQL refuses one beside transition tables.
CREATE TRIGGER transactions_counters_update AFTER UPDATE ON transactions REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sum_ledger_rows();
CREATE TRIGGER transactions_counters_delete AFTER DELETE ON transactions REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sum_ledger_rows();
