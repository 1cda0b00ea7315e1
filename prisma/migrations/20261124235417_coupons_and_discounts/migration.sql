-- AlterTable
ALTER TABLE "customers" ADD COLUMN     "discount" JSONB;

-- AlterTable
ALTER TABLE "invoice_lines" ADD COLUMN     "discount_id" TEXT;

-- AlterTable
ALTER TABLE "subscriptions" ADD COLUMN     "discount" JSONB;

-- CreateTable
CREATE TABLE "coupons" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "name" TEXT,
    "percent_off_hundredths" INTEGER,
    "amount_off" BIGINT,
    "currency" TEXT,
    "duration" TEXT NOT NULL,
    "duration_in_months" INTEGER,
    "max_redemptions" INTEGER,
    "redeem_by" TIMESTAMPTZ(3),
    "times_redeemed" INTEGER NOT NULL DEFAULT 0,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "deleted_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "coupons_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "discounts" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "coupon_id" TEXT NOT NULL,
    "customer_id" TEXT NOT NULL,
    "subscription_id" TEXT,
    "coupon" JSONB NOT NULL,
    "start" TIMESTAMPTZ(3) NOT NULL,
    "end" TIMESTAMPTZ(3),
    "used_invoice_id" TEXT,
    "removed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "discounts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "coupons_account_id_created_at_id_idx" ON "coupons"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "discounts_account_id_customer_id_idx" ON "discounts"("account_id", "customer_id");

-- CreateIndex
CREATE INDEX "discounts_subscription_id_idx" ON "discounts"("subscription_id");

-- CreateIndex
CREATE INDEX "discounts_coupon_id_idx" ON "discounts"("coupon_id");

