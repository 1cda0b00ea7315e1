-- AlterTable
ALTER TABLE "accounts" ADD COLUMN     "email_from" TEXT,
ADD COLUMN     "emails_off" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- CreateTable
CREATE TABLE "emails" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "event_id" TEXT NOT NULL,
    "to_address" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "invoice_id" TEXT,
    "customer_id" TEXT,
    "message_id" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_response" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "attempted_at" TIMESTAMPTZ(3),
    "sent_at" TIMESTAMPTZ(3),
    "failed_at" TIMESTAMPTZ(3),

    CONSTRAINT "emails_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "caught_emails" (
    "id" BIGSERIAL NOT NULL,
    "message_id" TEXT,
    "from_address" TEXT,
    "to_addresses" TEXT[],
    "subject" TEXT,
    "html" TEXT,
    "text" TEXT,
    "attachments" JSONB NOT NULL DEFAULT '[]',
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "caught_emails_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "emails_account_id_created_at_idx" ON "emails"("account_id", "created_at");

-- CreateIndex
CREATE INDEX "emails_invoice_id_idx" ON "emails"("invoice_id");

-- CreateIndex
CREATE UNIQUE INDEX "emails_event_id_kind_key" ON "emails"("event_id", "kind");

-- CreateIndex
CREATE UNIQUE INDEX "emails_message_id_key" ON "emails"("message_id");

-- CreateIndex
CREATE INDEX "caught_emails_message_id_idx" ON "caught_emails"("message_id");

-- AddForeignKey
ALTER TABLE "emails" ADD CONSTRAINT "emails_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

