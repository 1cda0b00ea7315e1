-- CreateIndex
CREATE INDEX "invoices_account_id_open_figures_idx" ON "invoices"("account_id", "status", "currency", "collection_method", "due_date", "attempt_count", "amount_due", "amount_paid");

