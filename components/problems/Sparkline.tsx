import { sparklinePoints } from "@/lib/problems/sparkline";
import styles from "./Problems.module.css";

const WIDTH = 120;
const HEIGHT = 28;

/** Chains per bucket over the window as a small inline SVG line; the numbers are in its accessible name. */
export function Sparkline({ trend, label }: { trend: number[]; label: string }) {
  const points = sparklinePoints(trend, WIDTH, HEIGHT);
  const peak = Math.max(0, ...trend);
  return (
    <svg
      className={styles.sparkline}
      viewBox={`-1 -2 ${WIDTH + 2} ${HEIGHT + 4}`}
      width={WIDTH}
      height={HEIGHT}
      role="img"
      aria-label={`${label}: ${trend.join(", ")} (peak ${peak})`}
      data-testid="problem-sparkline"
    >
      <line x1={0} y1={HEIGHT} x2={WIDTH} y2={HEIGHT} className={styles.sparkBase} />
      {points && <polygon points={`0,${HEIGHT} ${points} ${WIDTH},${HEIGHT}`} className={styles.sparkArea} />}
      <polyline points={points} className={styles.sparkLine} />
    </svg>
  );
}
