-- The retry guard (docs/ARCHITECTURE.md "Operations"). One row per operation key an agent asked about: the tool and
-- server the key is bound to, and the latest lease. Guard callers insert the row if missing, then lock it, so racing
-- callers on one key are served one after the other and exactly one of them is granted the lease. An operation's
-- attempts are the chains whose current record carries the key (chains.operation_key, already indexed). A lease is
-- consumed by the first chain with the key seen after it was granted, so nothing here is updated by ingestion.
CREATE TABLE "operations" (
    "operation_key" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "server" TEXT,
    "lease_holder" TEXT,
    "lease_granted_at" TIMESTAMPTZ(3),
    "lease_until" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    CONSTRAINT "operations_pkey" PRIMARY KEY ("operation_key")
);

-- Every guard decision, appended, never rewritten: what was asked, by whom, what the status was and what was answered.
CREATE TABLE "operation_decisions" (
    "id" BIGSERIAL NOT NULL,
    "operation_key" TEXT NOT NULL,
    "decision" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "holder" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "server" TEXT,
    "lease_until" TIMESTAMPTZ(3),
    "actor" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    CONSTRAINT "operation_decisions_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "operation_decisions_operation_key_id_idx" ON "operation_decisions" ("operation_key", "id");
