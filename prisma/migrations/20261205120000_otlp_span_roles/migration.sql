-- What of its session each stored span can change (lib/otlp/span-role.ts): `session` and `challenge` spans are read by
-- every chain of their session, `local` ones only by the chains of their own trace, so an export re-reads the
-- session's session and challenge spans and the traces it adds to, not the session's whole history. Spans stored
-- before carry `unknown`, and a session holding one is re-assembled whole, as every session was.
ALTER TABLE "otlp_spans" ADD COLUMN "role" TEXT NOT NULL DEFAULT 'unknown';

-- The spans every chain of a session reads, by session: an export's read of them skips the session's calls.
CREATE INDEX "otlp_spans_session_context_idx" ON "otlp_spans" ("session_key") WHERE "role" <> 'local';
