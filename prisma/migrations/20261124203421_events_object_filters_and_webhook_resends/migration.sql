-- DropIndex
DROP INDEX "webhook_deliveries_event_id_destination_id_key";

-- AlterTable
ALTER TABLE "events" ADD COLUMN     "customer_id" TEXT,
ADD COLUMN     "object_id" TEXT;

-- AlterTable
ALTER TABLE "webhook_deliveries" ADD COLUMN     "resend" INTEGER NOT NULL DEFAULT 0;

-- Backfill: the columns as src/lib/event.records.ts writes them for new events (docs/decisions.md §26).
UPDATE "events" SET "object_id" = "data"->>'id',
  "customer_id" = CASE WHEN "type" LIKE 'customer.%' THEN "data"->>'id'
                       WHEN jsonb_typeof("data"->'customer') = 'string' THEN "data"->>'customer' END;

-- CreateIndex
CREATE INDEX "events_account_id_type_created_at_idx" ON "events"("account_id", "type", "created_at");

-- CreateIndex
CREATE INDEX "events_account_id_object_id_created_at_idx" ON "events"("account_id", "object_id", "created_at");

-- CreateIndex
CREATE INDEX "events_account_id_customer_id_created_at_idx" ON "events"("account_id", "customer_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_deliveries_event_id_destination_id_resend_key" ON "webhook_deliveries"("event_id", "destination_id", "resend");

