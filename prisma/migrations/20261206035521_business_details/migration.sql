-- AlterTable
ALTER TABLE "accounts" ADD COLUMN     "business_address" JSONB,
ADD COLUMN     "legal_name" TEXT,
ADD COLUMN     "support_email" TEXT,
ADD COLUMN     "support_phone" TEXT,
ADD COLUMN     "tax_id" TEXT;

-- AlterTable
ALTER TABLE "invoices" ADD COLUMN     "account_address" JSONB,
ADD COLUMN     "account_email" TEXT,
ADD COLUMN     "account_phone" TEXT,
ADD COLUMN     "account_tax_id" TEXT;

