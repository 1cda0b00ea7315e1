-- CreateTable
CREATE TABLE "billing_portal_sessions" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "customer_id" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "return_url" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "billing_portal_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "customer_portal_settings" (
    "account_id" TEXT NOT NULL,
    "pause_resume" BOOLEAN NOT NULL DEFAULT false,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "customer_portal_settings_pkey" PRIMARY KEY ("account_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "billing_portal_sessions_token_hash_key" ON "billing_portal_sessions"("token_hash");

-- CreateIndex
CREATE INDEX "billing_portal_sessions_account_id_customer_id_idx" ON "billing_portal_sessions"("account_id", "customer_id");

