-- CreateIndex
CREATE INDEX "alerts_session_id_state_idx" ON "alerts"("session_id", "state");
