-- CreateTable
CREATE TABLE "products" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "name_key" TEXT NOT NULL,
    "description" TEXT,
    "tax_code" TEXT NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "default_price_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3),

    CONSTRAINT "products_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "prices" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "product_id" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "unit_amount" INTEGER NOT NULL,
    "type" TEXT NOT NULL,
    "recurring_interval" TEXT,
    "recurring_interval_count" INTEGER,
    "tax_behavior" TEXT NOT NULL,
    "description" TEXT,
    "billed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3),

    CONSTRAINT "prices_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tax_rates" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "display_name" TEXT NOT NULL,
    "description" TEXT,
    "rate_ppm" INTEGER NOT NULL,
    "inclusive" BOOLEAN NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "country" TEXT NOT NULL DEFAULT 'US',
    "tax_type" TEXT NOT NULL DEFAULT 'Custom',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3),

    CONSTRAINT "tax_rates_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "products_account_id_created_at_idx" ON "products"("account_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "products_account_id_name_key_key" ON "products"("account_id", "name_key");

-- CreateIndex
CREATE INDEX "prices_account_id_created_at_idx" ON "prices"("account_id", "created_at");

-- CreateIndex
CREATE INDEX "prices_product_id_idx" ON "prices"("product_id");

-- CreateIndex
CREATE INDEX "tax_rates_account_id_created_at_idx" ON "tax_rates"("account_id", "created_at");

-- AddForeignKey
ALTER TABLE "prices" ADD CONSTRAINT "prices_product_id_fkey" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

