-- Assignees are users. A free-text owner that is a username becomes that user, any other text stays readable
-- as the item's former owner, never dropped.
ALTER TABLE "triage_items" RENAME COLUMN "owner" TO "former_owner";
ALTER TABLE "triage_items" ADD COLUMN "assignee_user_id" UUID;

UPDATE "triage_items" t SET "assignee_user_id" = u."id", "former_owner" = NULL
FROM "users" u WHERE u."username" = t."former_owner";

-- AlterTable
ALTER TABLE "alerts" ADD COLUMN     "assignee_user_id" UUID;

-- CreateIndex
CREATE INDEX "triage_items_assignee_user_id_idx" ON "triage_items"("assignee_user_id");

-- CreateIndex
CREATE INDEX "alerts_assignee_user_id_idx" ON "alerts"("assignee_user_id");

-- AddForeignKey
ALTER TABLE "triage_items" ADD CONSTRAINT "triage_items_assignee_user_id_fkey" FOREIGN KEY ("assignee_user_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_assignee_user_id_fkey" FOREIGN KEY ("assignee_user_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;
