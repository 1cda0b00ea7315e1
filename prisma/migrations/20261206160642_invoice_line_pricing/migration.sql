-- AlterTable
ALTER TABLE "invoice_lines" ADD COLUMN     "pricing" JSONB;

