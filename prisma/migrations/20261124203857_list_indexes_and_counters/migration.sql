-- DropIndex
DROP INDEX "customers_account_id_created_at_idx";

-- DropIndex
DROP INDEX "invoices_account_id_created_at_idx";

-- DropIndex
DROP INDEX "invoices_account_id_customer_id_idx";

-- DropIndex
DROP INDEX "invoices_account_id_subscription_id_idx";

-- DropIndex
DROP INDEX "invoices_account_id_status_idx";

-- DropIndex
DROP INDEX "webhook_deliveries_account_id_created_at_idx";

-- DropIndex
DROP INDEX "webhook_deliveries_account_id_status_created_at_idx";

-- DropIndex
DROP INDEX "webhook_deliveries_destination_id_created_at_idx";

-- CreateTable
CREATE TABLE "invoice_counts" (
    "account_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "slot" SMALLINT NOT NULL,
    "n" BIGINT NOT NULL,

    CONSTRAINT "invoice_counts_pkey" PRIMARY KEY ("account_id","status","day","slot")
);

-- CreateTable
CREATE TABLE "balance_sums" (
    "account_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "slot" SMALLINT NOT NULL,
    "amount" DECIMAL(30,0) NOT NULL,
    "n" BIGINT NOT NULL,

    CONSTRAINT "balance_sums_pkey" PRIMARY KEY ("account_id","status","currency","slot")
);

-- CreateTable
CREATE TABLE "webhook_delivery_counts" (
    "account_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "event_type" TEXT NOT NULL,
    "destination_id" TEXT NOT NULL,
    "slot" SMALLINT NOT NULL,
    "n" BIGINT NOT NULL,

    CONSTRAINT "webhook_delivery_counts_pkey" PRIMARY KEY ("account_id","status","event_type","destination_id","slot")
);

-- CreateIndex
CREATE INDEX "customers_account_id_created_at_id_idx" ON "customers"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "customers_account_id_name_id_email_deleted_at_idx" ON "customers"("account_id", "name", "id", "email", "deleted_at");

-- CreateIndex
CREATE INDEX "customers_account_id_email_id_idx" ON "customers"("account_id", "email", "id");

-- CreateIndex
CREATE INDEX "invoices_account_id_created_at_id_idx" ON "invoices"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "invoices_account_id_customer_id_created_at_id_idx" ON "invoices"("account_id", "customer_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "invoices_account_id_subscription_id_created_at_id_idx" ON "invoices"("account_id", "subscription_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "invoices_account_id_status_created_at_id_idx" ON "invoices"("account_id", "status", "created_at", "id");

-- CreateIndex
CREATE INDEX "webhook_deliveries_account_id_created_at_id_idx" ON "webhook_deliveries"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "webhook_deliveries_account_id_status_created_at_id_idx" ON "webhook_deliveries"("account_id", "status", "created_at", "id");

-- CreateIndex
CREATE INDEX "webhook_deliveries_account_id_event_type_created_at_id_idx" ON "webhook_deliveries"("account_id", "event_type", "created_at", "id");

-- CreateIndex
CREATE INDEX "webhook_deliveries_destination_id_created_at_id_idx" ON "webhook_deliveries"("destination_id", "created_at", "id");


-- Exact list counts and balance sums kept in the writing transaction (docs/decisions.md, "Lists at scale"):
-- statement-level triggers read the statement's rows from its transition tables and add their net change
-- per key in one upsert (a bulk insert costs one upsert per key, not one per row), keys in a fixed order so
-- two writers never wait on each other crosswise. An UPDATE that changes no key writes nothing.
CREATE FUNCTION count_invoice_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO invoice_counts AS c (account_id, status, day, slot, n)
    SELECT account_id, status, (created_at AT TIME ZONE 'UTC')::date, (hashtext(id) & 3)::smallint, count(*)
    FROM new_rows GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
    ON CONFLICT (account_id, status, day, slot) DO UPDATE SET n = c.n + EXCLUDED.n;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO invoice_counts AS c (account_id, status, day, slot, n)
    SELECT account_id, status, day, slot, sum(n) FROM (
      SELECT account_id, status, (created_at AT TIME ZONE 'UTC')::date AS day, (hashtext(id) & 3)::smallint AS slot, 1 AS n FROM new_rows
      UNION ALL
      SELECT account_id, status, (created_at AT TIME ZONE 'UTC')::date, (hashtext(id) & 3)::smallint, -1 FROM old_rows
    ) change GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0 ORDER BY 1, 2, 3, 4
    ON CONFLICT (account_id, status, day, slot) DO UPDATE SET n = c.n + EXCLUDED.n;
  ELSE
    INSERT INTO invoice_counts AS c (account_id, status, day, slot, n)
    SELECT account_id, status, (created_at AT TIME ZONE 'UTC')::date, (hashtext(id) & 3)::smallint, -count(*)
    FROM old_rows GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
    ON CONFLICT (account_id, status, day, slot) DO UPDATE SET n = c.n + EXCLUDED.n;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER invoices_count_insert AFTER INSERT ON invoices REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION count_invoice_rows();
CREATE TRIGGER invoices_count_update AFTER UPDATE ON invoices REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION count_invoice_rows();
CREATE TRIGGER invoices_count_delete AFTER DELETE ON invoices REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION count_invoice_rows();

INSERT INTO invoice_counts (account_id, status, day, slot, n)
SELECT account_id, status, (created_at AT TIME ZONE 'UTC')::date, (hashtext(id) & 3)::smallint, count(*)
FROM invoices GROUP BY 1, 2, 3, 4;

CREATE FUNCTION sum_transaction_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO balance_sums AS b (account_id, status, currency, slot, amount, n)
    SELECT account_id, status, currency, (hashtext(id) & 3)::smallint, sum(amount), count(*)
    FROM new_rows GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
    ON CONFLICT (account_id, status, currency, slot) DO UPDATE SET amount = b.amount + EXCLUDED.amount, n = b.n + EXCLUDED.n;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO balance_sums AS b (account_id, status, currency, slot, amount, n)
    SELECT account_id, status, currency, slot, sum(amount), sum(n) FROM (
      SELECT account_id, status, currency, (hashtext(id) & 3)::smallint AS slot, amount::numeric AS amount, 1 AS n FROM new_rows
      UNION ALL
      SELECT account_id, status, currency, (hashtext(id) & 3)::smallint, -amount::numeric, -1 FROM old_rows
    ) change GROUP BY 1, 2, 3, 4 HAVING sum(amount) <> 0 OR sum(n) <> 0 ORDER BY 1, 2, 3, 4
    ON CONFLICT (account_id, status, currency, slot) DO UPDATE SET amount = b.amount + EXCLUDED.amount, n = b.n + EXCLUDED.n;
  ELSE
    INSERT INTO balance_sums AS b (account_id, status, currency, slot, amount, n)
    SELECT account_id, status, currency, (hashtext(id) & 3)::smallint, -sum(amount), -count(*)
    FROM old_rows GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
    ON CONFLICT (account_id, status, currency, slot) DO UPDATE SET amount = b.amount + EXCLUDED.amount, n = b.n + EXCLUDED.n;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER transactions_sum_insert AFTER INSERT ON transactions REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sum_transaction_rows();
CREATE TRIGGER transactions_sum_update AFTER UPDATE ON transactions REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sum_transaction_rows();
CREATE TRIGGER transactions_sum_delete AFTER DELETE ON transactions REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sum_transaction_rows();

INSERT INTO balance_sums (account_id, status, currency, slot, amount, n)
SELECT account_id, status, currency, (hashtext(id) & 3)::smallint, sum(amount), count(*)
FROM transactions GROUP BY 1, 2, 3, 4;

CREATE FUNCTION count_webhook_delivery_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO webhook_delivery_counts AS c (account_id, status, event_type, destination_id, slot, n)
    SELECT account_id, status, event_type, destination_id, (hashtext(id) & 3)::smallint, count(*)
    FROM new_rows GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (account_id, status, event_type, destination_id, slot) DO UPDATE SET n = c.n + EXCLUDED.n;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO webhook_delivery_counts AS c (account_id, status, event_type, destination_id, slot, n)
    SELECT account_id, status, event_type, destination_id, slot, sum(n) FROM (
      SELECT account_id, status, event_type, destination_id, (hashtext(id) & 3)::smallint AS slot, 1 AS n FROM new_rows
      UNION ALL
      SELECT account_id, status, event_type, destination_id, (hashtext(id) & 3)::smallint, -1 FROM old_rows
    ) change GROUP BY 1, 2, 3, 4, 5 HAVING sum(n) <> 0 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (account_id, status, event_type, destination_id, slot) DO UPDATE SET n = c.n + EXCLUDED.n;
  ELSE
    INSERT INTO webhook_delivery_counts AS c (account_id, status, event_type, destination_id, slot, n)
    SELECT account_id, status, event_type, destination_id, (hashtext(id) & 3)::smallint, -count(*)
    FROM old_rows GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (account_id, status, event_type, destination_id, slot) DO UPDATE SET n = c.n + EXCLUDED.n;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER webhook_deliveries_count_insert AFTER INSERT ON webhook_deliveries REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION count_webhook_delivery_rows();
CREATE TRIGGER webhook_deliveries_count_update AFTER UPDATE ON webhook_deliveries REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION count_webhook_delivery_rows();
CREATE TRIGGER webhook_deliveries_count_delete AFTER DELETE ON webhook_deliveries REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION count_webhook_delivery_rows();

INSERT INTO webhook_delivery_counts (account_id, status, event_type, destination_id, slot, n)
SELECT account_id, status, event_type, destination_id, (hashtext(id) & 3)::smallint, count(*)
FROM webhook_deliveries GROUP BY 1, 2, 3, 4, 5;
