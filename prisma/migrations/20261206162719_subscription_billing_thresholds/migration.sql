-- AlterTable
ALTER TABLE "subscriptions" ADD COLUMN     "billing_threshold_amount_gte" INTEGER;

