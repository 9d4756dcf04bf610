-- DropForeignKey (members of a deleted group are deleted with it by deleteGroups)
ALTER TABLE "notification_group_members" DROP CONSTRAINT "notification_group_members_group_key_fkey";

-- DropIndex
DROP INDEX "alert_outbox_processed_at_id_idx";

-- Routed events were kept a week for troubleshooting: from now on routing deletes them.
DELETE FROM "alert_outbox" WHERE "processed_at" IS NOT NULL;

-- AlterTable
ALTER TABLE "alert_outbox" DROP COLUMN "processed_at";
