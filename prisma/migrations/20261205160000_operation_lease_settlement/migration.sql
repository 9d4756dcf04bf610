-- A lease that expired with no record (the agent may have died after sending) is in doubt until the destination is
-- read: by an operator (POST /api/v1/operations/{key}/settle) or a destination check. What it showed is kept on the
-- operation's row and cleared when a new lease is granted.
ALTER TABLE "operations" ADD COLUMN "lease_effect" TEXT,
ADD COLUMN "lease_effect_receipt" TEXT,
ADD COLUMN "lease_effect_by" TEXT,
ADD COLUMN "lease_effect_at" TIMESTAMPTZ(3),
ADD COLUMN "lease_checked_at" TIMESTAMPTZ(3);
