-- CreateTable
CREATE TABLE "terminals" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "current_sale_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "terminals_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "terminal_sales" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "terminal_id" TEXT NOT NULL,
    "payment_id" TEXT NOT NULL,
    "amount" BIGINT NOT NULL,
    "currency" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "cancel_requested_at" TIMESTAMPTZ(3),
    "card_brand" TEXT,
    "card_last4" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "ended_at" TIMESTAMPTZ(3),

    CONSTRAINT "terminal_sales_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "payment_plans" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "customer_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "total_amount" BIGINT NOT NULL,
    "installments_count" INTEGER NOT NULL,
    "interval" TEXT NOT NULL,
    "interval_count" INTEGER NOT NULL,
    "start_date" TIMESTAMPTZ(3) NOT NULL,
    "payment_method_id" TEXT,
    "default_after_days" INTEGER NOT NULL,
    "workflow_id" TEXT NOT NULL,
    "task_queue" TEXT NOT NULL,
    "activated_at" TIMESTAMPTZ(3),
    "past_due_at" TIMESTAMPTZ(3),
    "defaulted_at" TIMESTAMPTZ(3),
    "completed_at" TIMESTAMPTZ(3),
    "canceled_at" TIMESTAMPTZ(3),
    "cancellation_reason" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "payment_plans_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "payment_plan_installments" (
    "plan_id" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "account_id" TEXT NOT NULL,
    "amount" BIGINT NOT NULL,
    "due_at" TIMESTAMPTZ(3) NOT NULL,
    "status" TEXT NOT NULL,
    "held_by_payment_id" TEXT,
    "payment_id" TEXT,
    "paid_at" TIMESTAMPTZ(3),
    "automatic_attempts" INTEGER NOT NULL DEFAULT 0,
    "failure_code" TEXT,
    "failure_message" TEXT,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "payment_plan_installments_pkey" PRIMARY KEY ("plan_id","number")
);

-- CreateTable
CREATE TABLE "payment_plan_payments" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "plan_id" TEXT NOT NULL,
    "customer_id" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "deposit" BOOLEAN NOT NULL DEFAULT false,
    "status" TEXT NOT NULL,
    "amount" BIGINT NOT NULL,
    "currency" TEXT NOT NULL,
    "installment_numbers" INTEGER[],
    "payment_method_id" TEXT,
    "save_payment_method" BOOLEAN NOT NULL DEFAULT false,
    "attempt_key" TEXT,
    "gateway_key" TEXT,
    "transaction_id" TEXT,
    "external_reference" TEXT,
    "terminal_id" TEXT,
    "terminal_sale_id" TEXT,
    "terminal_state" TEXT,
    "cancel_requested_at" TIMESTAMPTZ(3),
    "resolution" JSONB,
    "failure_code" TEXT,
    "failure_message" TEXT,
    "state_changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "payment_plan_payments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "payment_plan_settings" (
    "account_id" TEXT NOT NULL,
    "default_after_days" INTEGER NOT NULL DEFAULT 14,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "payment_plan_settings_pkey" PRIMARY KEY ("account_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "terminals_current_sale_id_key" ON "terminals"("current_sale_id");

-- CreateIndex
CREATE INDEX "terminals_account_id_created_at_idx" ON "terminals"("account_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "terminal_sales_payment_id_key" ON "terminal_sales"("payment_id");

-- CreateIndex
CREATE INDEX "terminal_sales_terminal_id_created_at_idx" ON "terminal_sales"("terminal_id", "created_at");

-- CreateIndex
CREATE INDEX "payment_plans_account_id_created_at_idx" ON "payment_plans"("account_id", "created_at");

-- CreateIndex
CREATE INDEX "payment_plans_account_id_customer_id_idx" ON "payment_plans"("account_id", "customer_id");

-- CreateIndex
CREATE INDEX "payment_plans_account_id_status_idx" ON "payment_plans"("account_id", "status");

-- CreateIndex
CREATE INDEX "payment_plan_payments_plan_id_created_at_idx" ON "payment_plan_payments"("plan_id", "created_at");

-- CreateIndex
CREATE INDEX "payment_plan_payments_account_id_method_terminal_state_stat_idx" ON "payment_plan_payments"("account_id", "method", "terminal_state", "state_changed_at");

-- CreateIndex
CREATE UNIQUE INDEX "payment_plan_payments_plan_id_attempt_key_key" ON "payment_plan_payments"("plan_id", "attempt_key");

-- AddForeignKey
ALTER TABLE "terminal_sales" ADD CONSTRAINT "terminal_sales_terminal_id_fkey" FOREIGN KEY ("terminal_id") REFERENCES "terminals"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "payment_plan_installments" ADD CONSTRAINT "payment_plan_installments_plan_id_fkey" FOREIGN KEY ("plan_id") REFERENCES "payment_plans"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "payment_plan_payments" ADD CONSTRAINT "payment_plan_payments_plan_id_fkey" FOREIGN KEY ("plan_id") REFERENCES "payment_plans"("id") ON DELETE CASCADE ON UPDATE CASCADE;

