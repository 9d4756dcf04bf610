import Link from "next/link";
import { TIME_WINDOWS, type TimeWindow } from "@/lib/dashboard/api-types";
import styles from "./Overview.module.css";

/** The window as links, so the choice lives in the URL and a shared link shows the same view. */
export function WindowPicker({ current }: { current: TimeWindow }) {
  return (
    <nav aria-label="Time window" className={styles.windows}>
      {TIME_WINDOWS.map((window) => (
        <Link key={window} href={`/?window=${window}`} aria-current={window === current ? "true" : undefined}>
          {window}
        </Link>
      ))}
    </nav>
  );
}
