import { reasonText } from "@/lib/dashboard/reason-text";
import styles from "./ReasonList.module.css";

/** Reason codes with their meaning in words beside them; the first one decided the state. */
export function ReasonList({
  reasons,
  decidingFirst = true,
}: {
  reasons: string[];
  decidingFirst?: boolean;
}) {
  if (reasons.length === 0) return null;
  return (
    <ul className={styles.list}>
      {reasons.map((code, index) => {
        const text = reasonText(code);
        return (
          <li key={code} className={index === 0 && decidingFirst ? styles.deciding : undefined}>
            <code className={styles.code}>{code}</code>
            <span className={styles.words}>
              <strong>{text.title}.</strong> {text.what}
              {index === 0 && decidingFirst && text.next && (
                <span className={styles.next}> Next: {text.next}</span>
              )}
            </span>
          </li>
        );
      })}
    </ul>
  );
}

/** One reason, compact: the title in words with the code after it (tables, lists). */
export function ReasonInline({ code }: { code: string }) {
  return (
    <span className={styles.inline} title={reasonText(code).what}>
      {reasonText(code).title} <code className={styles.code}>{code}</code>
    </span>
  );
}
