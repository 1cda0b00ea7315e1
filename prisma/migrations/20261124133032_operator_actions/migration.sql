-- AlterTable
ALTER TABLE "api_keys" ADD COLUMN     "replaced_by_id" TEXT;

-- CreateTable
CREATE TABLE "operator_actions" (
    "id" BIGSERIAL NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "operator" TEXT NOT NULL,
    "run_as" TEXT NOT NULL,
    "command" TEXT NOT NULL,
    "account_id" TEXT,
    "target" TEXT,
    "detail" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "operator_actions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "operator_actions_account_id_at_idx" ON "operator_actions"("account_id", "at");

-- CreateIndex
CREATE INDEX "operator_actions_target_idx" ON "operator_actions"("target");

