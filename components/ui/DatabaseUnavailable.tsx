import { AuthCard } from "../auth/AuthCard";
import styles from "./StatusViews.module.css";

/**
 * What a page shows instead of crashing when PostgreSQL cannot be reached: the app itself is up, the database is
 * not, and reloading once it is back is all it takes.
 */
export function DatabaseUnavailable() {
  return (
    <AuthCard
      title="Database unavailable"
      intro="Receipt is running but cannot reach its PostgreSQL database."
    >
      <div className={styles.error} role="alert">
        <p className={styles.title}>
          <span aria-hidden="true">⚠</span> The database is unavailable.
        </p>
        <p>
          Nothing is shown or changed until it is back; reload this page in a moment.{" "}
          <span className={styles.code}>(database_unavailable)</span>
        </p>
      </div>
    </AuthCard>
  );
}
