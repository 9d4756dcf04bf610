-- CreateTable
CREATE TABLE "sign_in_throttle" (
    "key" TEXT NOT NULL,
    "failures" INTEGER NOT NULL DEFAULT 0,
    "locked_until" TIMESTAMPTZ(3),
    "last_attempt_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "sign_in_throttle_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "sign_in_throttle_last_attempt_at_idx" ON "sign_in_throttle"("last_attempt_at");
