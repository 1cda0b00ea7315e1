-- CreateTable
CREATE TABLE "workflow_starts" (
    "workflow_id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "workflow_type" TEXT NOT NULL,
    "task_queue" TEXT NOT NULL,
    "args" JSONB NOT NULL,
    "options" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "workflow_starts_pkey" PRIMARY KEY ("workflow_id")
);

-- CreateIndex
CREATE INDEX "workflow_starts_task_queue_created_at_idx" ON "workflow_starts"("task_queue", "created_at");

-- AddForeignKey
ALTER TABLE "workflow_starts" ADD CONSTRAINT "workflow_starts_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

