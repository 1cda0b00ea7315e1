-- CreateIndex
CREATE INDEX "emails_customer_id_idx" ON "emails"("customer_id");

-- CreateIndex
CREATE INDEX "emails_subscription_id_idx" ON "emails"("subscription_id");

