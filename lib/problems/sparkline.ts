/**
 * The points of a sparkline polyline, left to right, in a `width` × `height` box (y grows downwards, the highest
 * count touches the top, zero lies on the bottom edge). One count is drawn as a flat line across the box.
 */
export function sparklinePoints(counts: readonly number[], width: number, height: number): string {
  if (counts.length === 0) return "";
  const max = Math.max(1, ...counts);
  const step = counts.length > 1 ? width / (counts.length - 1) : width;
  const y = (count: number) => round(height - (count / max) * height);
  if (counts.length === 1) return `0,${y(counts[0] ?? 0)} ${round(width)},${y(counts[0] ?? 0)}`;
  return counts.map((count, index) => `${round(index * step)},${y(count)}`).join(" ");
}

const round = (value: number) => Math.round(value * 10) / 10;
