-- AlterTable
ALTER TABLE "transactions" ADD COLUMN     "dunning_retry" INTEGER,
ADD COLUMN     "origin" TEXT;

