import type { HealthRecord } from "@/lib/contract";
import { type SeedCase, seedCases } from "./seed-cases";

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** A deep copy of `value` with every timestamp string moved by `deltaMs` (the evidence keeps its spacing). */
export function shiftTimes<T>(value: T, deltaMs: number): T {
  if (typeof value === "string" && TIMESTAMP.test(value)) {
    return new Date(Date.parse(value) + deltaMs).toISOString() as T;
  }
  if (Array.isArray(value)) return value.map((item) => shiftTimes(item, deltaMs)) as T;
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shiftTimes(v, deltaMs)])) as T;
  }
  return value;
}

/** `record` moved so it was observed at `observedAtMs`, under new ids (so each test owns its chains). */
export function rebased(record: HealthRecord, observedAtMs: number, tag: string): HealthRecord {
  const moved = shiftTimes(record, observedAtMs - Date.parse(record.observedAt));
  return {
    ...moved,
    recordId: `${record.recordId}:${tag}`,
    chainId: `${record.chainId}:${tag}`,
    session: { ...moved.session, id: `${record.session.id}:${tag}` },
  };
}

export type LiveCase = SeedCase & { record: HealthRecord };

/**
 * The nine seed cases as if they had just happened: the newest a minute ago, one minute apart. The long-running
 * task gets hours on both clocks so it stays `working` while a test runs instead of timing out under it.
 */
export function liveSeedCases(tag: string, nowMs = Date.now()): LiveCase[] {
  return seedCases().map((seed, index) => {
    const record = rebased(seed.record, nowMs - (index + 1) * 60_000, tag);
    if (record.call && seed.expectedState === "working") {
      record.call.deadlineMs = 4 * 3_600_000;
      record.call.inactivityMs = 2 * 3_600_000;
    }
    return { ...seed, record };
  });
}

export function liveCase(tag: string, state: string, nowMs = Date.now()): HealthRecord {
  const found = liveSeedCases(tag, nowMs).find((seed) => seed.expectedState === state);
  if (!found) throw new Error(`no seed case for ${state}`);
  return found.record;
}

/** A later snapshot of the same call: new recordId, observed `laterMs` after `record`, evidence otherwise equal. */
export function laterSnapshot(record: HealthRecord, laterMs: number, suffix: string): HealthRecord {
  return {
    ...structuredClone(record),
    recordId: `${record.recordId}:${suffix}`,
    observedAt: new Date(Date.parse(record.observedAt) + laterMs).toISOString(),
  };
}

/** A timed-out write hidden behind an unresolved 401: state needs_auth, shadowed effect_unknown. */
export function shadowedTimeout(tag: string, nowMs = Date.now()): HealthRecord {
  const timeout = liveCase(tag, "effect_unknown", nowMs);
  return {
    ...timeout,
    recordId: `${timeout.recordId}:shadowed`,
    chainId: `${timeout.chainId}:shadowed`,
    session: {
      ...timeout.session,
      auth: {
        challenge: { status: 401, at: timeout.call?.startedAt ?? timeout.observedAt, error: "invalid_token" },
      },
    },
  };
}

/**
 * Contract v1.2: the healthy seed export as a sampled trace shows it — the call and its receipts, but neither the
 * session's initialize nor its tools/list: state unverified (session.not_observed), never green.
 */
export function unseenLayersCase(tag: string, nowMs = Date.now()): HealthRecord {
  const healthy = liveCase(tag, "healthy", nowMs);
  const { initializedAt: _unseen, ...protocol } = healthy.session.protocol;
  const { catalog: _unseenCatalog, ...rest } = healthy;
  return {
    ...rest,
    recordId: `${healthy.recordId}:unseen`,
    chainId: `${healthy.chainId}:unseen`,
    session: { ...healthy.session, id: `${healthy.session.id}:unseen`, protocol },
    ...(healthy.call ? { call: { ...healthy.call, tool: "sampled_export" } } : {}),
    observed: { handshake: false, catalog: false },
  };
}
