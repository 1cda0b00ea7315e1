-- AlterTable
ALTER TABLE "accounts" ADD COLUMN     "payment_processor" TEXT;

