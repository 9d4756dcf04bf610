-- CreateTable
CREATE TABLE "otlp_spans" (
    "trace_id" TEXT NOT NULL,
    "span_id" TEXT NOT NULL,
    "session_key" TEXT NOT NULL,
    "content_hash" TEXT NOT NULL,
    "span" JSON NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "otlp_spans_pkey" PRIMARY KEY ("trace_id","span_id")
);

-- CreateIndex
CREATE INDEX "otlp_spans_session_key_idx" ON "otlp_spans"("session_key");
