// Durations in Prometheus/Alertmanager style: "30s", "5m", "4h", "1h30m", "250ms", "1d".
// Compound forms are accepted because teams paste them from Alertmanager configs.

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;
type Unit = keyof typeof UNIT_MS;

/** Units must appear largest first and at most once ("1h30m", not "30m1h"). */
const UNIT_ORDER: readonly Unit[] = ["w", "d", "h", "m", "s", "ms"];
export const DURATION_PATTERN = /^(?:\d+(?:ms|s|m|h|d|w))+$/;
const PART = /(\d+)(ms|s|m|h|d|w)/g;

/** Milliseconds, or null when the text is not a duration. */
export function parseDuration(text: string): number | null {
  if (!DURATION_PATTERN.test(text)) return null;
  let total = 0;
  let lastRank = -1;
  for (const part of text.matchAll(PART)) {
    const unit = part[2] as Unit;
    const rank = UNIT_ORDER.indexOf(unit);
    if (rank <= lastRank) return null;
    lastRank = rank;
    total += Number(part[1]) * UNIT_MS[unit];
  }
  return Number.isSafeInteger(total) ? total : null;
}

/** Inverse of parseDuration, for displaying compiled values ("90000" → "1m30s"). */
export function formatDuration(ms: number): string {
  if (ms === 0) return "0s";
  let rest = ms;
  let out = "";
  for (const unit of UNIT_ORDER) {
    const size = UNIT_MS[unit];
    const count = Math.floor(rest / size);
    if (count > 0) {
      out += `${count}${unit}`;
      rest -= count * size;
    }
  }
  return out;
}
