-- AlterTable
ALTER TABLE "terminals" ADD COLUMN     "reader_id" TEXT;

-- AlterTable
ALTER TABLE "terminal_sales" ADD COLUMN     "processor_reference" TEXT;

-- CreateTable
CREATE TABLE "stripe_terminal_locations" (
    "account_id" TEXT NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "location_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "stripe_terminal_locations_pkey" PRIMARY KEY ("account_id","livemode")
);

-- CreateIndex
CREATE INDEX "terminal_sales_account_id_processor_reference_idx" ON "terminal_sales"("account_id", "processor_reference");
