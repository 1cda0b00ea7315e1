-- Lists paged by cursor order by (created_at, id) (docs/decisions.md §36): their indexes end in id.
-- DropIndex
DROP INDEX "credit_notes_account_id_created_at_idx";

-- DropIndex
DROP INDEX "emails_account_id_created_at_idx";

-- DropIndex
DROP INDEX "payment_plans_account_id_created_at_idx";

-- CreateIndex
CREATE INDEX "credit_notes_account_id_created_at_id_idx" ON "credit_notes"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "emails_account_id_created_at_id_idx" ON "emails"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "payment_plans_account_id_created_at_id_idx" ON "payment_plans"("account_id", "created_at", "id");

