import { redactSpan, spanRoleOf } from "@/lib/otlp";
import { lockSessions, readSessionSpans, type SpanRow } from "../db/otlp-spans";
import { inTransaction } from "../db/sql";
import { readSessionKeysAfter, updateSpanRoles } from "../db/stored-rebuild";
import { dedupeWithinBatch, storeRecordsIn } from "../ingest/store-records";
import { assembleSessions } from "./assemble-sessions";

export type SessionRebuild = {
  sessions: number;
  /** Records the mapping builds now that were not stored: each becomes its chain's current record. */
  recordsStored: number;
  /** Records built the same as stored: nothing changes for their chains. */
  recordsUnchanged: number;
  /** Stored spans the mapping or the native validation refuses now: left stored, left out of the rebuild. */
  spansLeftOut: number;
  rolesUpdated: number;
};

const SESSIONS_A_STEP = 50;

/**
 * Every stored OTLP session rebuilt from its spans with the current mapping, as an export that brought all of
 * them would rebuild it: a chain whose record now reads differently (contract v1.2: an unseen handshake is
 * `observed.handshake: false`, not a failure) gets the new record through the native path — chain state,
 * history, rollups and alerts (an alert only the old reading raised resolves). Spans' roles are set anew too.
 * A step of sessions a transaction, under the sessions' locks (an export meanwhile waits, then reads the result).
 * `dryRun` counts what would change and rolls every step back.
 */
export async function rebuildStoredSessions(options: { dryRun?: boolean } = {}): Promise<SessionRebuild> {
  const total: SessionRebuild = {
    sessions: 0,
    recordsStored: 0,
    recordsUnchanged: 0,
    spansLeftOut: 0,
    rolesUpdated: 0,
  };
  let after = "";
  for (;;) {
    const step = await inTransaction(async (sql) => {
      const keys = await readSessionKeysAfter(sql, after, SESSIONS_A_STEP);
      if (keys.length === 0) return undefined;
      await lockSessions(sql, keys);
      const spans = await readSessionSpans(sql, keys);
      const rows: SpanRow[] = spans.map((stored) => {
        // Redacted with today's rules (assembleSessions maps spans as they are): an older release may have kept more.
        const span = redactSpan(stored.span);
        return {
          traceId: stored.traceId,
          spanId: stored.spanId,
          sessionKey: stored.sessionKey,
          role: spanRoleOf(span),
          span,
          contentHash: "",
          json: "",
        };
      });
      const rolesUpdated = await updateSpanRoles(sql, rows);
      const assembled = await assembleSessions(
        sql,
        rows,
        { storedBySession: new Map(), grown: new Set() },
        true,
      );
      const batch = dedupeWithinBatch(assembled.records);
      const duplicates = batch.length > 0 ? await storeRecordsIn(sql, batch, "skipping stored") : new Set();
      const counted: SessionRebuild = {
        sessions: keys.length,
        recordsStored: batch.length - duplicates.size,
        recordsUnchanged: assembled.storedAlready + duplicates.size,
        spansLeftOut: assembled.refused.size,
        rolesUpdated,
      };
      if (options.dryRun) throw new DryRun({ counted, last: keys.at(-1) as string });
      return { counted, last: keys.at(-1) as string };
    }).catch((error: unknown) => {
      if (error instanceof DryRun) return error.step;
      throw error;
    });
    if (step === undefined) return total;
    for (const key of Object.keys(total) as (keyof SessionRebuild)[]) total[key] += step.counted[key];
    after = step.last;
  }
}

/** Thrown to roll a dry run's step back with what it would have done. */
export class DryRun extends Error {
  constructor(readonly step: { counted: SessionRebuild; last: string }) {
    super("dry run");
  }
}
