/** Formatting shared by the views: durations as people say them, times both relative and absolute. */

export function formatDuration(ms: number): string {
  const abs = Math.abs(ms);
  const sign = ms < 0 ? "−" : "";
  if (abs < 1000) return `${sign}${Math.round(abs)} ms`;
  if (abs < 9_950) return `${sign}${(abs / 1000).toFixed(1)} s`;
  // Rounded once, then split: rounding each part on its own showed "2 min 60 s".
  const seconds = Math.round(abs / 1000);
  if (seconds < 60) return `${sign}${seconds} s`;
  if (seconds < 3600) {
    const rest = seconds % 60;
    return `${sign}${Math.floor(seconds / 60)} min${rest ? ` ${rest} s` : ""}`;
  }
  const minutes = Math.round(abs / 60_000);
  if (minutes < 1440) {
    const rest = minutes % 60;
    return `${sign}${Math.floor(minutes / 60)} h${rest ? ` ${rest} min` : ""}`;
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
