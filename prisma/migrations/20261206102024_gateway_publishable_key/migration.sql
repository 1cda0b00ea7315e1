-- AlterTable
ALTER TABLE "gateway_settings" ADD COLUMN     "publishable_key" TEXT;

