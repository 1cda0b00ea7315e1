-- DropIndex
DROP INDEX "customers_account_id_created_at_id_idx";

-- DropIndex
DROP INDEX "customers_account_id_email_id_idx";

-- DropIndex
DROP INDEX "transactions_account_id_created_at_idx";

-- DropIndex
DROP INDEX "transactions_account_id_invoice_id_idx";

-- DropIndex
DROP INDEX "transactions_account_id_customer_id_idx";

-- DropIndex
DROP INDEX "webhook_deliveries_destination_id_created_at_id_idx";

-- CreateIndex
CREATE INDEX "customers_account_id_created_at_id_deleted_at_idx" ON "customers"("account_id", "created_at", "id", "deleted_at");

-- CreateIndex
CREATE INDEX "customers_account_id_email_id_deleted_at_idx" ON "customers"("account_id", "email", "id", "deleted_at");

-- CreateIndex
CREATE INDEX "emails_created_at_idx" ON "emails"("created_at");

-- CreateIndex
CREATE INDEX "caught_emails_received_at_idx" ON "caught_emails"("received_at");

-- CreateIndex
CREATE INDEX "transactions_account_id_created_at_id_idx" ON "transactions"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "transactions_account_id_invoice_id_created_at_id_idx" ON "transactions"("account_id", "invoice_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "transactions_account_id_customer_id_created_at_id_idx" ON "transactions"("account_id", "customer_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "transactions_account_id_status_created_at_id_idx" ON "transactions"("account_id", "status", "created_at", "id");

-- CreateIndex
CREATE INDEX "transactions_account_id_type_created_at_id_idx" ON "transactions"("account_id", "type", "created_at", "id");

-- CreateIndex
CREATE INDEX "webhook_deliveries_destination_id_created_at_id_account_id_idx" ON "webhook_deliveries"("destination_id", "created_at", "id", "account_id");

