-- CreateTable
CREATE TABLE "customer_counts" (
    "account_id" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "slot" SMALLINT NOT NULL,
    "n" BIGINT NOT NULL,

    CONSTRAINT "customer_counts_pkey" PRIMARY KEY ("account_id","day","slot")
);


-- Live customers per account and UTC creation day, kept in the writing transaction like invoice_counts
-- (docs/decisions.md §23, §36): statement-level triggers add each statement's net change per key in one
-- upsert, keys in a fixed order. A soft delete (deleted_at set) subtracts the customer; an UPDATE that
-- changes no key (live, day) writes nothing.
CREATE FUNCTION count_customer_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO customer_counts AS c (account_id, day, slot, n)
    SELECT account_id, (created_at AT TIME ZONE 'UTC')::date, (hashtext(id) & 3)::smallint, count(*)
    FROM new_rows WHERE deleted_at IS NULL GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (account_id, day, slot) DO UPDATE SET n = c.n + EXCLUDED.n;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO customer_counts AS c (account_id, day, slot, n)
    SELECT account_id, day, slot, sum(n) FROM (
      SELECT account_id, (created_at AT TIME ZONE 'UTC')::date AS day, (hashtext(id) & 3)::smallint AS slot, 1 AS n
      FROM new_rows WHERE deleted_at IS NULL
      UNION ALL
      SELECT account_id, (created_at AT TIME ZONE 'UTC')::date, (hashtext(id) & 3)::smallint, -1
      FROM old_rows WHERE deleted_at IS NULL
    ) change GROUP BY 1, 2, 3 HAVING sum(n) <> 0 ORDER BY 1, 2, 3
    ON CONFLICT (account_id, day, slot) DO UPDATE SET n = c.n + EXCLUDED.n;
  ELSE
    INSERT INTO customer_counts AS c (account_id, day, slot, n)
    SELECT account_id, (created_at AT TIME ZONE 'UTC')::date, (hashtext(id) & 3)::smallint, -count(*)
    FROM old_rows WHERE deleted_at IS NULL GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (account_id, day, slot) DO UPDATE SET n = c.n + EXCLUDED.n;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER customers_count_insert AFTER INSERT ON customers REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION count_customer_rows();
CREATE TRIGGER customers_count_update AFTER UPDATE ON customers REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION count_customer_rows();
CREATE TRIGGER customers_count_delete AFTER DELETE ON customers REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION count_customer_rows();

INSERT INTO customer_counts (account_id, day, slot, n)
SELECT account_id, (created_at AT TIME ZONE 'UTC')::date, (hashtext(id) & 3)::smallint, count(*)
FROM customers WHERE deleted_at IS NULL GROUP BY 1, 2, 3;
