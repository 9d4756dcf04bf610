"use client";

import type { TInhibitRule } from "@/lib/routing/config";
import styles from "./Routing.module.css";

const Chips = ({ matchers }: { matchers: string[] }) => (
  <span className={styles.chips}>
    {matchers.map((m) => (
      <code key={m} className={styles.chip}>
        {m}
      </code>
    ))}
  </span>
);

/** Inhibition rules, read as sentences. Edit them in the JSON editor below; validation keeps the protected states out. */
export function InhibitRules({ rules }: { rules: TInhibitRule[] }) {
  if (rules.length === 0) return <p className="muted">No inhibition rules.</p>;
  return (
    <ul className={styles.tree}>
      {rules.map((rule, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rules have no id; the position is the JSON path
        <li key={i} className={styles.node} data-testid="inhibit-rule">
          <div className={styles.nodeHead}>
            <span className={styles.nodeName}>{rule.name ?? `rule ${i + 1}`}</span>
          </div>
          <div>
            While an alert matching <Chips matchers={rule.sourceMatchers} /> fires, mute alerts matching{" "}
            <Chips matchers={rule.targetMatchers} />
            {rule.equal.length > 0 && (
              <>
                {" "}
                with the same <code>{rule.equal.join(", ")}</code>
              </>
            )}
            .
          </div>
        </li>
      ))}
      <li className="muted" style={{ marginTop: "0.4rem" }}>
        effect_unknown and false_success are never inhibited: a possible duplicate write or a missing
        deliverable always reaches a person.
      </li>
    </ul>
  );
}
