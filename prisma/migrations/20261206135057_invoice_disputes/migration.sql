-- AlterTable
ALTER TABLE "invoices" ADD COLUMN     "dispute" JSONB;

