-- AlterTable
ALTER TABLE "subscriptions" ADD COLUMN     "usage_closed_at" TIMESTAMPTZ(3);

