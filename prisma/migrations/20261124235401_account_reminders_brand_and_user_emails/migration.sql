-- AlterTable
ALTER TABLE "accounts" ADD COLUMN     "brand_color" TEXT,
ADD COLUMN     "renewal_reminder_days" INTEGER,
ADD COLUMN     "trial_end_reminder_days" INTEGER;

-- AlterTable
ALTER TABLE "emails" ADD COLUMN     "details" JSONB,
ADD COLUMN     "payment_plan_id" TEXT,
ADD COLUMN     "subscription_id" TEXT,
ALTER COLUMN "event_id" DROP NOT NULL;

-- AlterTable
ALTER TABLE "invitations" ADD COLUMN     "email_error" TEXT,
ADD COLUMN     "emailed_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "password_resets" (
    "id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),
    "emailed_at" TIMESTAMPTZ(3),
    "email_error" TEXT,

    CONSTRAINT "password_resets_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "password_resets_token_hash_key" ON "password_resets"("token_hash");

-- CreateIndex
CREATE INDEX "password_resets_user_id_idx" ON "password_resets"("user_id");

-- AddForeignKey
ALTER TABLE "password_resets" ADD CONSTRAINT "password_resets_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

