/** Formatting shared by the views: durations as people say them, times both relative and absolute. */

export function formatDuration(ms: number): string {
  const abs = Math.abs(ms);
  const sign = ms < 0 ? "−" : "";
  if (abs < 1000) return `${sign}${Math.round(abs)} ms`;
  if (abs < 60_000) return `${sign}${(abs / 1000).toFixed(abs < 10_000 ? 1 : 0)} s`;
  if (abs < 3_600_000) {
    const minutes = Math.floor(abs / 60_000);
    const seconds = Math.round((abs % 60_000) / 1000);
    return `${sign}${minutes} min${seconds ? ` ${seconds} s` : ""}`;
  }
  if (abs < 86_400_000) {
    const hours = Math.floor(abs / 3_600_000);
    const minutes = Math.round((abs % 3_600_000) / 60_000);
    return `${sign}${hours} h${minutes ? ` ${minutes} min` : ""}`;
  }
  return `${sign}${(abs / 86_400_000).toFixed(1)} d`;
}

export function formatRelative(iso: string, nowMs: number): string {
  const delta = nowMs - Date.parse(iso);
  if (Math.abs(delta) < 5_000) return "just now";
  return delta >= 0 ? `${formatDuration(delta)} ago` : `in ${formatDuration(-delta)}`;
}

const absolute = new Intl.DateTimeFormat("en-GB", {
  year: "numeric",
  month: "short",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  timeZone: "UTC",
  timeZoneName: "short",
});

/** An unambiguous time for operators in different zones: always UTC, always with the zone. */
export function formatAbsolute(iso: string): string {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso : absolute.format(ms);
}

export function formatCount(n: number): string {
  return n.toLocaleString("en-US");
}

export function formatShare(part: number, whole: number): string {
  if (whole === 0) return "–";
  const share = (part / whole) * 100;
  return `${share >= 99.95 || share < 0.05 ? share.toFixed(0) : share.toFixed(1)}%`;
}
