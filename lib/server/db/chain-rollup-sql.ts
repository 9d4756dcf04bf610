// The SQL pieces every writer of chains shares to keep the rollups (lib/server/db/chain-rollups.ts). Kept apart,
// importing nothing, so chain-writes.ts and chain-rollups.ts can both use them.

/**
 * Contract v1.2's layers the reporter did not see, as a bit mask (UNSEEN): the coverage report counts them per server
 * and tool. A not-observed code may follow another reason, so the deciding reason alone cannot tell. Most chains
 * saw every layer: the overlap test answers 0 for them before any other test runs.
 */
export const unseenLayersOf = (row: string) => `(case when ${row}.reasons && array['session.not_observed',
    'catalog.not_observed']::text[] then (case when 'session.not_observed' = any(${row}.reasons) then 1 else 0 end)
    | (case when 'catalog.not_observed' = any(${row}.reasons) then 2 else 0 end)
    | (case when ${row}.reasons[1] in ('session.not_observed', 'catalog.not_observed')
        and 'outcome.weak_evidence' = any(${row}.reasons) then 4 else 0 end)
  else 0 end)::smallint`;

/**
 * The bits of `unseen`: the handshake or the catalog not observed (anywhere among the reasons), and a chain decided by
 * one of the two whose passing receipt came from an LLM judge (weak evidence, on its path only).
 */
export const UNSEEN = { handshake: 1, catalog: 2, weakReceipt: 4 } as const;

/**
 * The rollup key of a `chains` row as `row` names it (a table alias, or `old`/`new` in a RETURNING clause), each column
 * named `prefix` + its ROLLUP_KEY_COLUMNS name: '' for none, so every key column can be in a primary key.
 */
export const rollupKeyOf = (
  row: string,
  prefix = "",
) => `date_bin('1 hour', ${row}.observed_at, 'epoch'::timestamptz)
    as ${prefix}bucket, ${row}.state as ${prefix}state, coalesce(${row}.shadowed_state, '') as ${prefix}shadowed_state,
  coalesce(${row}.server_name, '') as ${prefix}server_name, coalesce(${row}.tool, '') as ${prefix}tool,
  ${row}.client_name as ${prefix}client_name, coalesce(${row}.reasons[1], '') as ${prefix}reason,
  coalesce(${row}.evidence = 'weak', false) as ${prefix}weak, ${unseenLayersOf(row)} as ${prefix}unseen`;

/** The rollup key of a `chains` row aliased `c`. */
export const ROLLUP_KEY_OF_CHAIN = rollupKeyOf("c");

export const ROLLUP_KEY_COLUMNS =
  "bucket, state, shadowed_state, server_name, tool, client_name, reason, weak, unseen";

/** `group by` positions of ROLLUP_KEY_COLUMNS at the head of a select list. */
export const ROLLUP_KEY_POSITIONS = "1, 2, 3, 4, 5, 6, 7, 8, 9";

/** The day rollup's key (chain_rollups_daily): the hour key without shadowed state and client. */
export const DAILY_KEY_COLUMNS = "bucket, state, server_name, tool, reason, weak, unseen";

/** `group by` positions of DAILY_KEY_COLUMNS at the head of a select list. */
export const DAILY_KEY_POSITIONS = "1, 2, 3, 4, 5, 6, 7";

/** DAILY_KEY_COLUMNS from an hour key's columns (a delta or an hour row): the hour binned to its day. */
export const DAILY_KEY_FROM_HOURS =
  "date_bin('1 day', bucket, 'epoch'::timestamptz), state, server_name, tool, reason, weak, unseen";

export const DAILY_DELTA_COLUMNS = `${DAILY_KEY_COLUMNS}, chains, first_observed_at, last_observed_at, last_written_at`;

export const DELTA_COLUMNS = `${ROLLUP_KEY_COLUMNS}, chains, first_observed_at, last_observed_at, last_written_at`;

/**
 * The insert that ends a statement writing chains: `changes` is a CTE of rollup keys and `labels` with `chains` (+1,
 * −1 or 0), `observed_at` (of an added chain, else null) and `written_at` (when the chain row was written, else
 * null). Rows that cancel out are dropped unless they carry a write: the problems page reads when a tuple was last
 * written. The labels ride along for the label rollup (chain_label_rollups), which the fold splits into pairs.
 */
export const appendRollupDeltasFrom = (
  changes: string,
) => `insert into chain_rollup_deltas (${DELTA_COLUMNS}, labels)
  select ${ROLLUP_KEY_COLUMNS}, sum(chains)::int, min(observed_at), max(observed_at), max(written_at), labels
  from ${changes}
  group by ${ROLLUP_KEY_POSITIONS}, labels
  having sum(chains) <> 0 or max(written_at) is not null`;

/** The label rollup's key but the label (chain_label_rollups): a label total filters on the rest as on chains. */
export const LABEL_ROLLUP_DIMENSIONS = "state, shadowed_state, server_name, tool, client_name, bucket";

/**
 * A label set as `chains_label_set_observed_at_idx` and chain_label_set_rollups hold it: a 64-bit hash of the labels'
 * text (jsonb prints its keys in one canonical order, so equal sets print alike). `labels`: a jsonb column.
 */
export const labelSetOf = (labels: string) => `hashtextextended(${labels}::text, 0)`;
