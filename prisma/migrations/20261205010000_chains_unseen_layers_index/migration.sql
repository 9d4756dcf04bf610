-- Contract v1.2: chains with a layer the reporter did not see (session.not_observed or catalog.not_observed among
-- their reasons, as the deciding reason or a path code). The rollups hold deciding reasons only, so the coverage
-- report's counts per server and tool in a time window, and a chain list filtered by one of the two codes, read this
-- partial index, which holds those chains alone: the counts on the index alone (the reasons ride along to tell the
-- handshake from the catalog), the list in time order without walking the chains that saw everything.
-- Chains stored before v1.2 cannot have either code (records could not carry observed), so it starts empty.
CREATE INDEX IF NOT EXISTS "chains_unseen_layers_observed_at_idx" ON "chains" ("observed_at" DESC, "chain_id" DESC) INCLUDE ("server_name", "tool", "state", "reasons") WHERE "reasons" && ARRAY['session.not_observed', 'catalog.not_observed']::text[];
