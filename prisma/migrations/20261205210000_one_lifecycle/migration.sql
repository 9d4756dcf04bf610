-- One lifecycle (docs/ARCHITECTURE.md): a problem's owner, and each resolve kept with the prior state of everything
-- it changed, so it can be undone exactly.

-- CreateTable
CREATE TABLE "problem_assignments" (
    "key" TEXT NOT NULL,
    "server_name" TEXT,
    "tool" TEXT,
    "state" TEXT NOT NULL,
    "reason" TEXT,
    "assignee_user_id" UUID NOT NULL,
    "assigned_at" TIMESTAMPTZ(3) NOT NULL,
    "assigned_by" TEXT NOT NULL,

    CONSTRAINT "problem_assignments_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "problem_assignments_assignee_user_id_idx" ON "problem_assignments"("assignee_user_id");

-- AddForeignKey
ALTER TABLE "problem_assignments" ADD CONSTRAINT "problem_assignments_assignee_user_id_fkey" FOREIGN KEY ("assignee_user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- CreateTable
CREATE TABLE "lifecycle_resolutions" (
    "id" UUID NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "actor_user_id" UUID,
    "actor" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "changes" JSONB NOT NULL,
    "undone_at" TIMESTAMPTZ(3),
    "undone_by" TEXT,

    CONSTRAINT "lifecycle_resolutions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "lifecycle_resolutions_at_idx" ON "lifecycle_resolutions"("at");
