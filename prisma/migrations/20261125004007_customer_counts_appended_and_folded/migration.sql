-- AlterTable
ALTER TABLE "customer_counts" DROP CONSTRAINT "customer_counts_pkey",
DROP COLUMN "slot",
ADD COLUMN     "folded" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "id" BIGSERIAL NOT NULL,
ADD CONSTRAINT "customer_counts_pkey" PRIMARY KEY ("id");

-- CreateIndex
CREATE INDEX "customer_counts_account_id_day_idx" ON "customer_counts"("account_id", "day");

-- CreateIndex
CREATE INDEX "customer_counts_folded_account_id_day_idx" ON "customer_counts"("folded", "account_id", "day");


-- Live customers per day are appended and folded like the other counters (docs/decisions.md §23): the
-- trigger appends a row per key and statement; fold_customer_counts() merges them (the worker calls it with
-- fold_counters, under the same advisory lock).
CREATE OR REPLACE FUNCTION count_customer_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO customer_counts (account_id, day, n)
    SELECT account_id, (created_at AT TIME ZONE 'UTC')::date, count(*)
    FROM new_rows WHERE deleted_at IS NULL GROUP BY 1, 2;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO customer_counts (account_id, day, n)
    SELECT account_id, day, sum(n) FROM (
      SELECT account_id, (created_at AT TIME ZONE 'UTC')::date AS day, 1 AS n FROM new_rows WHERE deleted_at IS NULL
      UNION ALL
      SELECT account_id, (created_at AT TIME ZONE 'UTC')::date, -1 FROM old_rows WHERE deleted_at IS NULL
    ) change GROUP BY 1, 2 HAVING sum(n) <> 0;
  ELSE
    INSERT INTO customer_counts (account_id, day, n)
    SELECT account_id, (created_at AT TIME ZONE 'UTC')::date, -count(*)
    FROM old_rows WHERE deleted_at IS NULL GROUP BY 1, 2;
  END IF;
  RETURN NULL;
END
$$;

CREATE FUNCTION fold_customer_counts(batch integer) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  removed bigint;
BEGIN
  IF NOT pg_try_advisory_xact_lock(hashtext('fold_counters')) THEN
    RETURN 0;
  END IF;
  WITH keys AS (
    SELECT DISTINCT account_id, day FROM customer_counts WHERE NOT folded LIMIT batch
  ), gone AS (
    DELETE FROM customer_counts c USING keys k WHERE c.account_id = k.account_id AND c.day = k.day
    RETURNING c.account_id, c.day, c.n
  ), kept AS (
    INSERT INTO customer_counts (account_id, day, n, folded)
    SELECT account_id, day, sum(n), true FROM gone GROUP BY 1, 2 HAVING sum(n) <> 0
  )
  SELECT count(*) INTO removed FROM gone;
  RETURN removed;
END
$$;

SELECT fold_customer_counts(1000000);
