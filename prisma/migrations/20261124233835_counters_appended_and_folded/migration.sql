-- AlterTable
ALTER TABLE "invoice_counts" DROP CONSTRAINT "invoice_counts_pkey",
DROP COLUMN "slot",
ADD COLUMN     "folded" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "id" BIGSERIAL NOT NULL,
ADD CONSTRAINT "invoice_counts_pkey" PRIMARY KEY ("id");

-- AlterTable
ALTER TABLE "balance_sums" DROP CONSTRAINT "balance_sums_pkey",
DROP COLUMN "slot",
ADD COLUMN     "folded" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "id" BIGSERIAL NOT NULL,
ADD CONSTRAINT "balance_sums_pkey" PRIMARY KEY ("id");

-- AlterTable
ALTER TABLE "webhook_delivery_counts" DROP CONSTRAINT "webhook_delivery_counts_pkey",
DROP COLUMN "slot",
ADD COLUMN     "folded" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "id" BIGSERIAL NOT NULL,
ADD CONSTRAINT "webhook_delivery_counts_pkey" PRIMARY KEY ("id");

-- CreateIndex
CREATE INDEX "invoice_counts_account_id_status_day_idx" ON "invoice_counts"("account_id", "status", "day");

-- CreateIndex
CREATE INDEX "invoice_counts_folded_account_id_status_day_idx" ON "invoice_counts"("folded", "account_id", "status", "day");

-- CreateIndex
CREATE INDEX "balance_sums_account_id_status_currency_idx" ON "balance_sums"("account_id", "status", "currency");

-- CreateIndex
CREATE INDEX "balance_sums_folded_account_id_status_currency_idx" ON "balance_sums"("folded", "account_id", "status", "currency");

-- CreateIndex
CREATE INDEX "webhook_delivery_counts_account_id_status_event_type_destin_idx" ON "webhook_delivery_counts"("account_id", "status", "event_type", "destination_id");

-- CreateIndex
CREATE INDEX "webhook_delivery_counts_folded_account_id_status_event_type_idx" ON "webhook_delivery_counts"("folded", "account_id", "status", "event_type", "destination_id");


-- Counters as appended deltas (docs/decisions.md, "Lists at scale"): each statement's trigger appends one
-- row per key with its net change and updates nothing, so two writers never wait on each other here (an
-- upsert on shared rows made concurrent creations in one account queue on them and, taking counter rows of
-- several tables in different orders, deadlock). fold_counters() merges each key's rows into one.
CREATE OR REPLACE FUNCTION count_invoice_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO invoice_counts (account_id, status, day, n)
    SELECT account_id, status, (created_at AT TIME ZONE 'UTC')::date, count(*) FROM new_rows GROUP BY 1, 2, 3;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO invoice_counts (account_id, status, day, n)
    SELECT account_id, status, day, sum(n) FROM (
      SELECT account_id, status, (created_at AT TIME ZONE 'UTC')::date AS day, 1 AS n FROM new_rows
      UNION ALL
      SELECT account_id, status, (created_at AT TIME ZONE 'UTC')::date, -1 FROM old_rows
    ) change GROUP BY 1, 2, 3 HAVING sum(n) <> 0;
  ELSE
    INSERT INTO invoice_counts (account_id, status, day, n)
    SELECT account_id, status, (created_at AT TIME ZONE 'UTC')::date, -count(*) FROM old_rows GROUP BY 1, 2, 3;
  END IF;
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION sum_transaction_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO balance_sums (account_id, status, currency, amount, n)
    SELECT account_id, status, currency, sum(amount), count(*) FROM new_rows GROUP BY 1, 2, 3;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO balance_sums (account_id, status, currency, amount, n)
    SELECT account_id, status, currency, sum(amount), sum(n) FROM (
      SELECT account_id, status, currency, amount::numeric AS amount, 1 AS n FROM new_rows
      UNION ALL
      SELECT account_id, status, currency, -amount::numeric, -1 FROM old_rows
    ) change GROUP BY 1, 2, 3 HAVING sum(amount) <> 0 OR sum(n) <> 0;
  ELSE
    INSERT INTO balance_sums (account_id, status, currency, amount, n)
    SELECT account_id, status, currency, -sum(amount), -count(*) FROM old_rows GROUP BY 1, 2, 3;
  END IF;
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION count_webhook_delivery_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO webhook_delivery_counts (account_id, status, event_type, destination_id, n)
    SELECT account_id, status, event_type, destination_id, count(*) FROM new_rows GROUP BY 1, 2, 3, 4;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO webhook_delivery_counts (account_id, status, event_type, destination_id, n)
    SELECT account_id, status, event_type, destination_id, sum(n) FROM (
      SELECT account_id, status, event_type, destination_id, 1 AS n FROM new_rows
      UNION ALL
      SELECT account_id, status, event_type, destination_id, -1 FROM old_rows
    ) change GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0;
  ELSE
    INSERT INTO webhook_delivery_counts (account_id, status, event_type, destination_id, n)
    SELECT account_id, status, event_type, destination_id, -count(*) FROM old_rows GROUP BY 1, 2, 3, 4;
  END IF;
  RETURN NULL;
END
$$;

-- Merges the delta rows of up to `batch` keys per table into one folded row per key (none when the key
-- nets to nothing) and answers how many rows it removed. Each merge is one statement: a reader's snapshot
-- sees the deltas or their folded row, never both nor neither. Rows a writer appends meanwhile stay for the
-- next call. One caller at a time (an advisory lock; a second returns 0 at once); were two to run, a row
-- deleted by one is skipped by the other, so nothing is counted twice.
CREATE FUNCTION fold_counters(batch integer) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  removed bigint := 0;
  step bigint;
BEGIN
  IF NOT pg_try_advisory_xact_lock(hashtext('fold_counters')) THEN
    RETURN 0;
  END IF;

  WITH keys AS (
    SELECT DISTINCT account_id, status, day FROM invoice_counts WHERE NOT folded LIMIT batch
  ), gone AS (
    DELETE FROM invoice_counts c USING keys k
    WHERE c.account_id = k.account_id AND c.status = k.status AND c.day = k.day
    RETURNING c.account_id, c.status, c.day, c.n
  ), kept AS (
    INSERT INTO invoice_counts (account_id, status, day, n, folded)
    SELECT account_id, status, day, sum(n), true FROM gone GROUP BY 1, 2, 3 HAVING sum(n) <> 0
  )
  SELECT count(*) INTO step FROM gone;
  removed := removed + step;

  WITH keys AS (
    SELECT DISTINCT account_id, status, currency FROM balance_sums WHERE NOT folded LIMIT batch
  ), gone AS (
    DELETE FROM balance_sums b USING keys k
    WHERE b.account_id = k.account_id AND b.status = k.status AND b.currency = k.currency
    RETURNING b.account_id, b.status, b.currency, b.amount, b.n
  ), kept AS (
    INSERT INTO balance_sums (account_id, status, currency, amount, n, folded)
    SELECT account_id, status, currency, sum(amount), sum(n), true FROM gone GROUP BY 1, 2, 3
    HAVING sum(amount) <> 0 OR sum(n) <> 0
  )
  SELECT count(*) INTO step FROM gone;
  removed := removed + step;

  WITH keys AS (
    SELECT DISTINCT account_id, status, event_type, destination_id FROM webhook_delivery_counts WHERE NOT folded LIMIT batch
  ), gone AS (
    DELETE FROM webhook_delivery_counts c USING keys k
    WHERE c.account_id = k.account_id AND c.status = k.status AND c.event_type = k.event_type
      AND c.destination_id = k.destination_id
    RETURNING c.account_id, c.status, c.event_type, c.destination_id, c.n
  ), kept AS (
    INSERT INTO webhook_delivery_counts (account_id, status, event_type, destination_id, n, folded)
    SELECT account_id, status, event_type, destination_id, sum(n), true FROM gone GROUP BY 1, 2, 3, 4
    HAVING sum(n) <> 0
  )
  SELECT count(*) INTO step FROM gone;
  removed := removed + step;

  RETURN removed;
END
$$;

SELECT fold_counters(1000000);
