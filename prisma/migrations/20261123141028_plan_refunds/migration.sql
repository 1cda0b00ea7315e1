-- AlterTable
ALTER TABLE "payment_plans" ADD COLUMN     "amount_refunded" BIGINT NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "payment_plan_payments" ADD COLUMN     "amount_refunded" BIGINT NOT NULL DEFAULT 0;

