import Link from "next/link";
import styles from "./Users.module.css";

/** The sections of Settings, above each of its pages. */
export function SettingsTabs({ current }: { current: "keys" | "users" }) {
  return (
    <nav aria-label="Settings" className={styles.tabs}>
      <Link href="/settings/keys" aria-current={current === "keys" ? "page" : undefined}>
        Ingestion keys
      </Link>
      <Link href="/settings/users" aria-current={current === "users" ? "page" : undefined}>
        Users
      </Link>
      <Link href="/account">Your account</Link>
    </nav>
  );
}
