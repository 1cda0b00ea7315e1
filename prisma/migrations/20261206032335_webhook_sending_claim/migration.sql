-- AlterTable
ALTER TABLE "webhook_deliveries" ADD COLUMN     "sending_attempt" INTEGER,
ADD COLUMN     "sending_since" TIMESTAMPTZ(3);

