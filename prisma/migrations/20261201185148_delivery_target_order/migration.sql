-- CreateIndex
CREATE INDEX "deliveries_status_channel_target_index_next_attempt_at_idx" ON "deliveries"("status", "channel", "target_index", "next_attempt_at");
