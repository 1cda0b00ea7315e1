-- CreateTable
CREATE TABLE "invoices" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "customer_id" TEXT NOT NULL,
    "subscription_id" TEXT,
    "number" TEXT,
    "status" TEXT NOT NULL,
    "collection_method" TEXT NOT NULL,
    "billing_reason" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "due_date" TIMESTAMPTZ(3),
    "period_start" TIMESTAMPTZ(3) NOT NULL,
    "period_end" TIMESTAMPTZ(3) NOT NULL,
    "subtotal" BIGINT NOT NULL,
    "subtotal_excluding_tax" BIGINT NOT NULL,
    "tax" BIGINT NOT NULL,
    "total" BIGINT NOT NULL,
    "total_excluding_tax" BIGINT NOT NULL,
    "total_taxes" JSONB NOT NULL,
    "amount_due" BIGINT NOT NULL,
    "amount_paid" BIGINT NOT NULL DEFAULT 0,
    "amount_refunded" BIGINT NOT NULL DEFAULT 0,
    "attempt_count" INTEGER NOT NULL DEFAULT 0,
    "payment_method_id" TEXT,
    "account_name" TEXT,
    "account_country" TEXT,
    "customer_name" TEXT,
    "customer_email" TEXT,
    "customer_phone" TEXT,
    "customer_address" JSONB,
    "idempotency_key" TEXT,
    "finalized_at" TIMESTAMPTZ(3),
    "paid_at" TIMESTAMPTZ(3),
    "voided_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "invoices_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "invoice_lines" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "invoice_id" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "description" TEXT,
    "price_id" TEXT,
    "quantity" INTEGER NOT NULL,
    "unit_amount" BIGINT NOT NULL,
    "amount" BIGINT NOT NULL,
    "amount_excluding_tax" BIGINT NOT NULL,
    "tax_rate_ids" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "tax_amounts" JSONB NOT NULL,
    "period_start" TIMESTAMPTZ(3) NOT NULL,
    "period_end" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "invoice_lines_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "invoice_number_counters" (
    "account_id" TEXT NOT NULL,
    "last_number" INTEGER NOT NULL,

    CONSTRAINT "invoice_number_counters_pkey" PRIMARY KEY ("account_id")
);

-- CreateTable
CREATE TABLE "transactions" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "amount" BIGINT NOT NULL,
    "currency" TEXT NOT NULL,
    "customer_id" TEXT,
    "invoice_id" TEXT,
    "payment_method_id" TEXT,
    "source_transaction_id" TEXT,
    "attempt" INTEGER,
    "attempt_key" TEXT,
    "gateway_key" TEXT,
    "gateway_reference" TEXT,
    "failure_code" TEXT,
    "failure_message" TEXT,
    "description" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "transactions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "payment_methods" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "customer_id" TEXT,
    "type" TEXT NOT NULL,
    "billing_details" JSONB NOT NULL,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "allow_redisplay" TEXT NOT NULL DEFAULT 'unspecified',
    "fingerprint" TEXT NOT NULL,
    "last4" TEXT NOT NULL,
    "card_brand" TEXT,
    "card_exp_month" INTEGER,
    "card_exp_year" INTEGER,
    "bank_name" TEXT,
    "bank_routing_number" TEXT,
    "bank_account_holder_type" TEXT,
    "bank_account_type" TEXT,
    "test_behavior" TEXT NOT NULL,
    "attached_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "payment_methods_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "customer_default_payment_methods" (
    "account_id" TEXT NOT NULL,
    "customer_id" TEXT NOT NULL,
    "payment_method_id" TEXT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "customer_default_payment_methods_pkey" PRIMARY KEY ("account_id","customer_id")
);

-- CreateTable
CREATE TABLE "gateway_charges" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "idempotency_key" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "payment_method_id" TEXT,
    "charge_id" TEXT,
    "amount" BIGINT NOT NULL,
    "currency" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "failure_code" TEXT,
    "failure_message" TEXT,
    "retryable" BOOLEAN NOT NULL DEFAULT false,
    "description" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "gateway_charges_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "idempotency_keys" (
    "account_id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "request_hash" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "response_status" INTEGER,
    "response_body" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "locked_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("account_id","key")
);

-- CreateIndex
CREATE INDEX "invoices_account_id_created_at_idx" ON "invoices"("account_id", "created_at");

-- CreateIndex
CREATE INDEX "invoices_account_id_customer_id_idx" ON "invoices"("account_id", "customer_id");

-- CreateIndex
CREATE INDEX "invoices_account_id_subscription_id_idx" ON "invoices"("account_id", "subscription_id");

-- CreateIndex
CREATE INDEX "invoices_account_id_status_idx" ON "invoices"("account_id", "status");

-- CreateIndex
CREATE UNIQUE INDEX "invoices_account_id_number_key" ON "invoices"("account_id", "number");

-- CreateIndex
CREATE UNIQUE INDEX "invoices_account_id_idempotency_key_key" ON "invoices"("account_id", "idempotency_key");

-- CreateIndex
CREATE INDEX "invoice_lines_invoice_id_position_idx" ON "invoice_lines"("invoice_id", "position");

-- CreateIndex
CREATE INDEX "invoice_lines_price_id_idx" ON "invoice_lines"("price_id");

-- CreateIndex
CREATE INDEX "transactions_account_id_created_at_idx" ON "transactions"("account_id", "created_at");

-- CreateIndex
CREATE INDEX "transactions_account_id_invoice_id_idx" ON "transactions"("account_id", "invoice_id");

-- CreateIndex
CREATE INDEX "transactions_account_id_customer_id_idx" ON "transactions"("account_id", "customer_id");

-- CreateIndex
CREATE INDEX "transactions_account_id_status_currency_idx" ON "transactions"("account_id", "status", "currency");

-- CreateIndex
CREATE UNIQUE INDEX "transactions_account_id_gateway_key_key" ON "transactions"("account_id", "gateway_key");

-- CreateIndex
CREATE UNIQUE INDEX "transactions_account_id_invoice_id_attempt_key_key" ON "transactions"("account_id", "invoice_id", "attempt_key");

-- CreateIndex
CREATE INDEX "payment_methods_account_id_created_at_idx" ON "payment_methods"("account_id", "created_at");

-- CreateIndex
CREATE INDEX "payment_methods_account_id_customer_id_fingerprint_idx" ON "payment_methods"("account_id", "customer_id", "fingerprint");

-- CreateIndex
CREATE INDEX "gateway_charges_charge_id_idx" ON "gateway_charges"("charge_id");

-- CreateIndex
CREATE UNIQUE INDEX "gateway_charges_account_id_idempotency_key_key" ON "gateway_charges"("account_id", "idempotency_key");

-- CreateIndex
CREATE INDEX "idempotency_keys_created_at_idx" ON "idempotency_keys"("created_at");

-- AddForeignKey
ALTER TABLE "invoice_lines" ADD CONSTRAINT "invoice_lines_invoice_id_fkey" FOREIGN KEY ("invoice_id") REFERENCES "invoices"("id") ON DELETE CASCADE ON UPDATE CASCADE;

