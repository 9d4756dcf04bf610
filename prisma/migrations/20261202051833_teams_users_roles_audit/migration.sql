-- AlterTable
ALTER TABLE "users" ADD COLUMN     "disabled_at" TIMESTAMPTZ(3),
ADD COLUMN     "display_name" TEXT,
ADD COLUMN     "email" TEXT,
ADD COLUMN     "notification_target" JSONB,
ADD COLUMN     "oidc_issuer" TEXT,
ADD COLUMN     "oidc_subject" TEXT,
ADD COLUMN     "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ALTER COLUMN "password_hash" DROP NOT NULL,
ALTER COLUMN "role" SET DEFAULT 'viewer';

-- AlterTable
ALTER TABLE "user_sessions" ADD COLUMN     "address" TEXT,
ADD COLUMN     "id" UUID NOT NULL DEFAULT gen_random_uuid(),
ADD COLUMN     "method" TEXT NOT NULL DEFAULT 'password',
ADD COLUMN     "user_agent" TEXT;

-- CreateTable
CREATE TABLE "user_invites" (
    "token_hash" TEXT NOT NULL,
    "id" UUID NOT NULL,
    "role" TEXT NOT NULL,
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),
    "used_by_user_id" UUID,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "user_invites_pkey" PRIMARY KEY ("token_hash")
);

-- CreateTable
CREATE TABLE "audit_events" (
    "id" BIGSERIAL NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actor_user_id" UUID,
    "actor" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "target_type" TEXT NOT NULL,
    "target_id" TEXT NOT NULL,
    "before" JSONB,
    "after" JSONB,

    CONSTRAINT "audit_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "user_invites_id_key" ON "user_invites"("id");

-- CreateIndex
CREATE INDEX "user_invites_created_at_idx" ON "user_invites"("created_at");

-- CreateIndex
CREATE INDEX "audit_events_at_id_idx" ON "audit_events"("at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "audit_events_actor_at_idx" ON "audit_events"("actor", "at" DESC);

-- CreateIndex
CREATE INDEX "audit_events_action_at_idx" ON "audit_events"("action", "at" DESC);

-- CreateIndex
CREATE INDEX "audit_events_target_type_target_id_at_idx" ON "audit_events"("target_type", "target_id", "at" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "users_oidc_issuer_oidc_subject_key" ON "users"("oidc_issuer", "oidc_subject");

-- CreateIndex
CREATE UNIQUE INDEX "user_sessions_id_key" ON "user_sessions"("id");
