-- AlterTable
ALTER TABLE "customers" ADD COLUMN     "balance" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "balance_currency" TEXT;

-- AlterTable
ALTER TABLE "invoices" ADD COLUMN     "applied_balance" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "post_payment_credit_notes_amount" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "pre_payment_credit_notes_amount" BIGINT NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "credit_notes" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "number" TEXT NOT NULL,
    "invoice_id" TEXT NOT NULL,
    "customer_id" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "amount" BIGINT NOT NULL,
    "reason" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "refund_to" TEXT,
    "memo" TEXT,
    "status" TEXT NOT NULL,
    "transaction_id" TEXT,
    "customer_balance_transaction_id" TEXT,
    "voided_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_ms" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "credit_notes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "credit_note_lines" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "credit_note_id" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "invoice_line_id" TEXT,
    "description" TEXT,
    "quantity" INTEGER,
    "amount" BIGINT NOT NULL,

    CONSTRAINT "credit_note_lines_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "credit_note_number_counters" (
    "account_id" TEXT NOT NULL,
    "last_number" INTEGER NOT NULL,

    CONSTRAINT "credit_note_number_counters_pkey" PRIMARY KEY ("account_id")
);

-- CreateTable
CREATE TABLE "customer_balance_transactions" (
    "id" TEXT NOT NULL,
    "seq" BIGSERIAL NOT NULL,
    "account_id" TEXT NOT NULL,
    "customer_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "amount" BIGINT NOT NULL,
    "currency" TEXT NOT NULL,
    "ending_balance" BIGINT NOT NULL,
    "invoice_id" TEXT,
    "credit_note_id" TEXT,
    "description" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "customer_balance_transactions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "credit_notes_account_id_created_at_idx" ON "credit_notes"("account_id", "created_at");

-- CreateIndex
CREATE INDEX "credit_notes_account_id_invoice_id_idx" ON "credit_notes"("account_id", "invoice_id");

-- CreateIndex
CREATE INDEX "credit_notes_account_id_customer_id_idx" ON "credit_notes"("account_id", "customer_id");

-- CreateIndex
CREATE UNIQUE INDEX "credit_notes_account_id_number_key" ON "credit_notes"("account_id", "number");

-- CreateIndex
CREATE INDEX "credit_note_lines_credit_note_id_position_idx" ON "credit_note_lines"("credit_note_id", "position");

-- CreateIndex
CREATE INDEX "credit_note_lines_invoice_line_id_idx" ON "credit_note_lines"("invoice_line_id");

-- CreateIndex
CREATE INDEX "customer_balance_transactions_account_id_invoice_id_idx" ON "customer_balance_transactions"("account_id", "invoice_id");

-- CreateIndex
CREATE INDEX "customer_balance_transactions_account_id_customer_id_seq_idx" ON "customer_balance_transactions"("account_id", "customer_id", "seq");

-- AddForeignKey
ALTER TABLE "credit_note_lines" ADD CONSTRAINT "credit_note_lines_credit_note_id_fkey" FOREIGN KEY ("credit_note_id") REFERENCES "credit_notes"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Credit notes have events, so they carry `updated_ms` like every such object (migration object_updated_ms).
CREATE TRIGGER credit_notes_updated_ms BEFORE INSERT OR UPDATE ON credit_notes FOR EACH ROW EXECUTE FUNCTION bump_updated_ms();
