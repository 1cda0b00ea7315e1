-- DropIndex
DROP INDEX "subscriptions_account_id_created_at_idx";

-- DropIndex
DROP INDEX "subscriptions_account_id_customer_id_idx";

-- DropIndex
DROP INDEX "subscriptions_account_id_status_idx";

-- CreateIndex
CREATE INDEX "subscriptions_account_id_created_at_id_idx" ON "subscriptions"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "subscriptions_account_id_customer_id_created_at_id_idx" ON "subscriptions"("account_id", "customer_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "subscriptions_account_id_status_created_at_id_idx" ON "subscriptions"("account_id", "status", "created_at", "id");

