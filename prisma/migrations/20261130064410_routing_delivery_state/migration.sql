-- AlterTable
ALTER TABLE "alerts" ADD COLUMN     "confirmed_at" TIMESTAMPTZ(3),
ADD COLUMN     "record_id" TEXT,
ADD COLUMN     "resolved_by" TEXT,
ADD COLUMN     "retry_safe" BOOLEAN;

-- AlterTable
ALTER TABLE "notification_groups" ADD COLUMN     "member_fingerprints" TEXT[];

-- AlterTable
ALTER TABLE "deliveries" ADD COLUMN     "alert_fingerprints" TEXT[],
ADD COLUMN     "kind" TEXT NOT NULL DEFAULT 'notification',
ADD COLUMN     "signing_secret" TEXT,
ALTER COLUMN "body" SET DATA TYPE TEXT;

-- CreateIndex
CREATE INDEX "notification_groups_member_fingerprints_idx" ON "notification_groups" USING GIN ("member_fingerprints");

-- CreateIndex
CREATE INDEX "deliveries_group_key_created_at_idx" ON "deliveries"("group_key", "created_at");
