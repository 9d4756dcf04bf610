import { parseStorableTimestamp } from "../contract/timestamp";
import { STATE_SEVERITY_ORDER, type State } from "../contract/states";

/** How the chain list is ordered: newest first (or oldest, `order=asc`), or most dangerous state first. */
export const CHAIN_SORTS = ["time", "danger"] as const;
export type ChainSort = (typeof CHAIN_SORTS)[number];

/** Past this many matches the list says "more than 10,000" instead of counting on. */
export const CHAIN_TOTAL_CAP = 10_000;

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const RELATIVE = /^([1-9][0-9]{0,3})([mhd])$/;

/** `15m`, `1h`, `24h`, `7d` (up to 9999 units) → its length in ms; anything else → undefined. */
export function relativeRangeMs(value: string): number | undefined {
  const match = RELATIVE.exec(value);
  if (!match) return undefined;
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

/**
 * A `since` as the URL holds it — relative (`1h`), resolved against `nowMs` at every request so a kept link stays
 * "the last hour", or an absolute RFC 3339 time — as the instant it names; undefined when it is neither.
 */
export function resolveSince(value: string, nowMs: number): Date | undefined {
  const relative = relativeRangeMs(value);
  if (relative !== undefined) return new Date(nowMs - relative);
  const absolute = parseStorableTimestamp(value);
  return absolute === undefined ? undefined : new Date(absolute);
}

/** `state=a,b` and `state=a&state=b` alike → the distinct names, in the order given (empty parts dropped). */
export function splitStates(value: string | string[] | undefined): string[] {
  const parts = (Array.isArray(value) ? value : value === undefined ? [] : [value]).flatMap((v) =>
    v.split(","),
  );
  return [...new Set(parts.map((part) => part.trim()).filter(Boolean))];
}

/** The states in danger order (most dangerous first), for a list sorted by danger. */
export function statesByDanger(states: readonly State[]): State[] {
  const wanted = new Set(states);
  return STATE_SEVERITY_ORDER.filter((state) => wanted.has(state));
}

/** "1,234 chains", "1 chain", "more than 10,000 chains". */
export function formatChainTotal(total: { count: number; capped: boolean }): string {
  if (total.capped) return `more than ${total.count.toLocaleString("en-US")} chains`;
  return `${total.count.toLocaleString("en-US")} ${total.count === 1 ? "chain" : "chains"}`;
}
