import type { ReactNode } from "react";
import styles from "./AuthCard.module.css";

/** The frame of the sign-in and setup pages: the product's name and one form, centred. */
export function AuthCard({
  title,
  intro,
  children,
}: {
  title: string;
  intro: ReactNode;
  children: ReactNode;
}) {
  return (
    <main id="main" className={styles.page}>
      <div className={styles.card}>
        <p className={styles.brand}>
          Receipt <span>no green without a receipt</span>
        </p>
        <h1>{title}</h1>
        <p className={styles.intro}>{intro}</p>
        {children}
      </div>
    </main>
  );
}
