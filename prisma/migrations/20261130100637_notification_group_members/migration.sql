-- CreateTable
CREATE TABLE "notification_group_members" (
    "group_key" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,

    CONSTRAINT "notification_group_members_pkey" PRIMARY KEY ("group_key","fingerprint")
);

-- Keep the members of open groups (hand-written: the diff alone would drop them).
INSERT INTO "notification_group_members" ("group_key", "fingerprint")
SELECT DISTINCT "group_key", unnest("member_fingerprints") FROM "notification_groups";

-- AddForeignKey
ALTER TABLE "notification_group_members" ADD CONSTRAINT "notification_group_members_group_key_fkey" FOREIGN KEY ("group_key") REFERENCES "notification_groups"("group_key") ON DELETE CASCADE ON UPDATE CASCADE;

-- AlterTable
ALTER TABLE "notification_groups" DROP COLUMN "member_fingerprints";
