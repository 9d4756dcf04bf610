-- CreateTable
CREATE TABLE "problem_resolutions" (
    "key" TEXT NOT NULL,
    "server_name" TEXT,
    "tool" TEXT,
    "state" TEXT NOT NULL,
    "reason" TEXT,
    "resolved_at" TIMESTAMPTZ(3) NOT NULL,
    "resolved_by" TEXT NOT NULL,

    CONSTRAINT "problem_resolutions_pkey" PRIMARY KEY ("key")
);
