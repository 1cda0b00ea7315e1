-- CreateIndex
CREATE INDEX "payment_plan_payments_terminal_state_state_changed_at_idx" ON "payment_plan_payments"("terminal_state", "state_changed_at");

-- CreateIndex
CREATE INDEX "webhook_deliveries_status_created_at_idx" ON "webhook_deliveries"("status", "created_at");

-- CreateIndex
CREATE INDEX "workflow_starts_created_at_idx" ON "workflow_starts"("created_at");

