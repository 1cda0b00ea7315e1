-- AlterTable
ALTER TABLE "webhook_destinations" ADD COLUMN     "previous_secret_ciphertext" TEXT,
ADD COLUMN     "previous_secret_expires_at" TIMESTAMPTZ(3),
ADD COLUMN     "previous_secret_key_id" TEXT,
ADD COLUMN     "secret_ciphertext" TEXT,
ADD COLUMN     "secret_key_id" TEXT,
ALTER COLUMN "secret" DROP NOT NULL;

