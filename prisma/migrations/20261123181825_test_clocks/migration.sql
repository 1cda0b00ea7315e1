-- AlterTable
ALTER TABLE "customers" ADD COLUMN     "test_clock_id" TEXT;

-- CreateTable
CREATE TABLE "test_clocks" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "name" TEXT,
    "frozen_time" TIMESTAMPTZ(3) NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'ready',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "test_clocks_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "test_clocks_account_id_created_at_idx" ON "test_clocks"("account_id", "created_at");

-- CreateIndex
CREATE INDEX "customers_test_clock_id_idx" ON "customers"("test_clock_id");

-- AddForeignKey
ALTER TABLE "customers" ADD CONSTRAINT "customers_test_clock_id_fkey" FOREIGN KEY ("test_clock_id") REFERENCES "test_clocks"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "test_clocks" ADD CONSTRAINT "test_clocks_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

