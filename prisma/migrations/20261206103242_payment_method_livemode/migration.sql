-- AlterTable
ALTER TABLE "payment_methods" ADD COLUMN     "livemode" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "wallet_type" TEXT;

