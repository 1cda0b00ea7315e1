-- CreateTable
CREATE TABLE "stripe_customers" (
    "account_id" TEXT NOT NULL,
    "customer_id" TEXT NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "stripe_customer_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "stripe_customers_pkey" PRIMARY KEY ("account_id","customer_id","livemode")
);

-- CreateTable
CREATE TABLE "processor_events" (
    "account_id" TEXT NOT NULL,
    "processor" TEXT NOT NULL,
    "event_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "object_id" TEXT,
    "outcome" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "processor_events_pkey" PRIMARY KEY ("account_id","processor","event_id")
);

-- CreateIndex
CREATE INDEX "processor_events_account_id_received_at_idx" ON "processor_events"("account_id", "received_at");

