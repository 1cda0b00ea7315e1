-- AlterTable
ALTER TABLE "prices" ADD COLUMN     "billing_scheme" TEXT NOT NULL DEFAULT 'per_unit',
ADD COLUMN     "meter_id" TEXT,
ADD COLUMN     "tiers" JSONB,
ADD COLUMN     "tiers_mode" TEXT,
ADD COLUMN     "transform_divide_by" INTEGER,
ADD COLUMN     "transform_round" TEXT,
ADD COLUMN     "usage_type" TEXT NOT NULL DEFAULT 'licensed';

-- CreateTable
CREATE TABLE "meters" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "event_name" TEXT NOT NULL,
    "aggregation" TEXT NOT NULL,
    "value_property" TEXT,
    "status" TEXT NOT NULL DEFAULT 'active',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3),

    CONSTRAINT "meters_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "usage_events" (
    "account_id" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "event_name" TEXT NOT NULL,
    "customer_id" TEXT NOT NULL,
    "timestamp" TIMESTAMPTZ(3) NOT NULL,
    "properties" JSONB NOT NULL DEFAULT '{}',
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "usage_events_pkey" PRIMARY KEY ("account_id","id")
);

-- CreateIndex
CREATE INDEX "meters_account_id_created_at_id_idx" ON "meters"("account_id", "created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "meters_account_id_event_name_key" ON "meters"("account_id", "event_name");

-- CreateIndex
CREATE INDEX "usage_events_account_id_customer_id_event_name_timestamp_idx" ON "usage_events"("account_id", "customer_id", "event_name", "timestamp");

