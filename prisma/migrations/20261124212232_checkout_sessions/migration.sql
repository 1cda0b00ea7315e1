-- CreateTable
CREATE TABLE "checkout_sessions" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "customer_id" TEXT,
    "token_hash" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "items" JSONB NOT NULL,
    "trial_days" INTEGER,
    "success_url" TEXT NOT NULL,
    "cancel_url" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'open',
    "claimed_at" TIMESTAMPTZ(3),
    "subscription_id" TEXT,
    "invoice_id" TEXT,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "completed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "checkout_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "checkout_sessions_token_hash_key" ON "checkout_sessions"("token_hash");

-- CreateIndex
CREATE INDEX "checkout_sessions_account_id_created_at_idx" ON "checkout_sessions"("account_id", "created_at");

