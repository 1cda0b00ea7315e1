-- AlterTable: accounts that exist now keep today's behaviour (none); new accounts prorate (docs/decisions.md §25).
ALTER TABLE "accounts" ADD COLUMN     "proration_behavior" TEXT NOT NULL DEFAULT 'none';
ALTER TABLE "accounts" ALTER COLUMN "proration_behavior" SET DEFAULT 'create_prorations';

-- AlterTable
ALTER TABLE "invoice_lines" ADD COLUMN     "proration" BOOLEAN NOT NULL DEFAULT false;
