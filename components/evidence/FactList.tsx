import { formatAbsolute, formatDuration } from "@/lib/dashboard/format";
import type { Fact } from "@/lib/dashboard/layer-facts";
import styles from "./Evidence.module.css";

function FactValue({ fact }: { fact: Fact }) {
  switch (fact.kind) {
    case "time":
      return <time dateTime={fact.value}>{formatAbsolute(fact.value)}</time>;
    case "duration":
      return <>{formatDuration(Number(fact.value))}</>;
    case "code":
      return <code>{fact.value}</code>;
    default:
      return <>{fact.value}</>;
  }
}

/** A layer's evidence as label/value pairs; weak evidence carries the word "weak", not just a colour. */
export function FactList({ facts }: { facts: Fact[] }) {
  if (facts.length === 0) return null;
  return (
    <dl className={styles.facts}>
      {facts.map((fact, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: labels repeat (several list_changed times); the list is static
        <div key={`${fact.label}-${index}`} className={fact.tone ? styles[`tone-${fact.tone}`] : undefined}>
          <dt>{fact.label}</dt>
          <dd>
            <FactValue fact={fact} />
            {fact.tone === "weak" && <span className={styles.weakTag}>weak evidence</span>}
          </dd>
        </div>
      ))}
    </dl>
  );
}
