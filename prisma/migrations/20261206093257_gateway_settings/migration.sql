-- CreateTable
CREATE TABLE "gateway_settings" (
    "account_id" TEXT NOT NULL,
    "processor" TEXT NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "secret_key_ciphertext" TEXT NOT NULL,
    "secret_key_key_id" TEXT NOT NULL,
    "secret_key_last4" TEXT NOT NULL,
    "webhook_secret_ciphertext" TEXT NOT NULL,
    "webhook_secret_key_id" TEXT NOT NULL,
    "webhook_secret_last4" TEXT NOT NULL,
    "webhook_key" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "gateway_settings_pkey" PRIMARY KEY ("account_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "gateway_settings_webhook_key_key" ON "gateway_settings"("webhook_key");

