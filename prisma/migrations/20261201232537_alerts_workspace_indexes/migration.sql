-- CreateIndex
CREATE INDEX "alerts_status_starts_at_idx" ON "alerts"("status", "starts_at" DESC);

-- CreateIndex
CREATE INDEX "alerts_status_state_starts_at_idx" ON "alerts"("status", "state", "starts_at" DESC);

-- CreateIndex
CREATE INDEX "alerts_status_ends_at_idx" ON "alerts"("status", "ends_at" DESC);

-- CreateIndex (fastupdate off: read at once, rows never wait in a pending list every lookup would scan)
CREATE INDEX "deliveries_alert_fingerprints_idx" ON "deliveries" USING GIN ("alert_fingerprints") WITH (fastupdate = off);
