-- CreateTable
CREATE TABLE "hosted_invoice_links" (
    "invoice_id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "token_sealed" TEXT NOT NULL,
    "key_id" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "hosted_invoice_links_pkey" PRIMARY KEY ("invoice_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "hosted_invoice_links_token_hash_key" ON "hosted_invoice_links"("token_hash");

-- AddForeignKey
ALTER TABLE "hosted_invoice_links" ADD CONSTRAINT "hosted_invoice_links_invoice_id_fkey" FOREIGN KEY ("invoice_id") REFERENCES "invoices"("id") ON DELETE CASCADE ON UPDATE CASCADE;

