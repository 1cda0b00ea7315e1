-- AlterTable
ALTER TABLE "terminal_sales" ADD COLUMN     "processor_outcome" TEXT;

