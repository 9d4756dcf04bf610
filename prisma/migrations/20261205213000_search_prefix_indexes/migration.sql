-- Prefix search on ids (the header box: chain, session, JSON-RPC request id, operation key). A prefix is read as a
-- byte range with text_pattern_ops, which the default btree indexes cannot serve under a non-C database collation.
-- Prisma's schema cannot name a btree operator class, so these indexes live here only (schema.prisma says so).
CREATE INDEX "chains_chain_id_prefix_idx" ON "chains" ("chain_id" text_pattern_ops);
CREATE INDEX "chains_session_id_prefix_idx" ON "chains" ("session_id" text_pattern_ops);
CREATE INDEX "chains_request_id_prefix_idx" ON "chains" ("request_id" text_pattern_ops) WHERE "request_id" IS NOT NULL;
CREATE INDEX "chains_operation_key_prefix_idx" ON "chains" ("operation_key" text_pattern_ops) WHERE "operation_key" IS NOT NULL;
