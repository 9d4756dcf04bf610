-- CreateIndex
CREATE INDEX "otlp_spans_received_at_idx" ON "otlp_spans"("received_at");
