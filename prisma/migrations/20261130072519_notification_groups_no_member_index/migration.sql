-- DropIndex
DROP INDEX "notification_groups_member_fingerprints_idx";
