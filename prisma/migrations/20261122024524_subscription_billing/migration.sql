-- AlterTable
ALTER TABLE "subscriptions" ADD COLUMN     "workflow_version" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "subscription_items" ADD COLUMN     "position" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "subscription_renewals" (
    "subscription_id" TEXT NOT NULL,
    "period_start" TIMESTAMPTZ(3) NOT NULL,
    "account_id" TEXT NOT NULL,
    "period_end" TIMESTAMPTZ(3) NOT NULL,
    "invoice_id" TEXT,
    "status" TEXT NOT NULL,
    "attempt_count" INTEGER NOT NULL DEFAULT 0,
    "last_failure_code" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "subscription_renewals_pkey" PRIMARY KEY ("subscription_id","period_start")
);

-- CreateTable
CREATE TABLE "subscription_dunning_settings" (
    "account_id" TEXT NOT NULL,
    "retry_days" INTEGER[] DEFAULT ARRAY[1, 3, 5]::INTEGER[],
    "outcome" TEXT NOT NULL DEFAULT 'cancel',
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "subscription_dunning_settings_pkey" PRIMARY KEY ("account_id")
);

-- CreateIndex
CREATE INDEX "subscription_renewals_account_id_invoice_id_idx" ON "subscription_renewals"("account_id", "invoice_id");

-- AddForeignKey
ALTER TABLE "subscription_renewals" ADD CONSTRAINT "subscription_renewals_subscription_id_fkey" FOREIGN KEY ("subscription_id") REFERENCES "subscriptions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

