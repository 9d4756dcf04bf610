-- Contract v1.2: chains with a layer the reporter did not see (session.not_observed or catalog.not_observed among
-- their reasons, as the deciding reason or a path code). The coverage report counts them per server and tool in a
-- time window. The rollups hold deciding reasons only, so the count reads this partial index, which holds those
-- chains alone, on the index alone (the reasons ride along to tell the handshake from the catalog).
-- Chains stored before v1.2 cannot have either code (records could not carry observed), so it starts empty.
CREATE INDEX IF NOT EXISTS "chains_unseen_layers_observed_at_idx" ON "chains" ("observed_at") INCLUDE ("server_name", "tool", "reasons") WHERE "reasons" && ARRAY['session.not_observed', 'catalog.not_observed']::text[];
