"use client";

import { type FormEvent, type ReactNode, useId, useState } from "react";
import type { TInhibitRule } from "@/lib/routing/config";
import { ConfirmDialog } from "./ConfirmDialog";
import { FieldIssues, FormError } from "./FormError";
import { SaveVersionFooter } from "./SaveVersionFooter";
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

const lines = (text: string) =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);

/** What the list can change; each call saves one new config version. `index` null: a new rule, added last. */
export type InhibitActions = {
  save: (index: number | null, rule: TInhibitRule, comment: string) => Promise<unknown>;
  remove: (index: number) => Promise<unknown>;
};

const ruleLabel = (rule: TInhibitRule, index: number) => rule.name ?? `rule ${index + 1}`;

/** One rule's fields; the server's problems (a protected state targeted, a bad matcher) appear at their field. */
function InhibitRuleForm({
  label,
  initial,
  jsonPath,
  submitLabel,
  onSubmit,
  onCancel,
  busy,
}: {
  label: string;
  initial?: TInhibitRule;
  jsonPath: string;
  submitLabel: string;
  onSubmit: (rule: TInhibitRule, comment: string) => Promise<unknown>;
  onCancel?: () => void;
  busy: boolean;
}) {
  const uid = useId();
  const blank = {
    name: initial?.name ?? "",
    source: (initial?.sourceMatchers ?? []).join("\n"),
    target: (initial?.targetMatchers ?? []).join("\n"),
    equal: (initial?.equal ?? []).join(", "),
    comment: "",
  };
  const [draft, setDraft] = useState(blank);
  const [error, setError] = useState<unknown>(null);
  const set = (key: keyof typeof blank) => (event: { target: { value: string } }) =>
    setDraft((d) => ({ ...d, [key]: event.target.value }));
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    const rule: TInhibitRule = {
      ...(draft.name.trim() ? { name: draft.name.trim() } : {}),
      sourceMatchers: lines(draft.source),
      targetMatchers: lines(draft.target),
      equal: draft.equal
        .split(",")
        .map((label) => label.trim())
        .filter(Boolean),
    };
    await onSubmit(rule, draft.comment.trim()).then(
      () => setDraft(blank),
      (refused: unknown) => setError(refused),
    );
  };
  const field = (
    key: "name" | "sourceMatchers" | "targetMatchers" | "equal",
    text: string,
    input: ReactNode,
  ) => (
    <div className={`field ${key.endsWith("Matchers") ? styles.wide : ""}`}>
      <label htmlFor={`${uid}-${key}`}>{text}</label>
      {input}
      <FieldIssues id={`${uid}-${key}-issues`} error={error} path={`${jsonPath}.${key}`} />
    </div>
  );
  return (
    <form className={styles.form} onSubmit={submit} aria-label={label}>
      {field("name", "Rule name", <input id={`${uid}-name`} value={draft.name} onChange={set("name")} />)}
      {field(
        "equal",
        "Equal labels (comma-separated)",
        <input id={`${uid}-equal`} value={draft.equal} onChange={set("equal")} placeholder="server" />,
      )}
      {field(
        "sourceMatchers",
        "While an alert matching (one per line)",
        <textarea
          id={`${uid}-sourceMatchers`}
          value={draft.source}
          onChange={set("source")}
          placeholder={'state="needs_auth"'}
        />,
      )}
      {field(
        "targetMatchers",
        "fires, mute alerts matching (one per line)",
        <textarea
          id={`${uid}-targetMatchers`}
          value={draft.target}
          onChange={set("target")}
          placeholder={'state=~"tool_failed|protocol_error"'}
        />,
      )}
      <SaveVersionFooter
        comment={draft.comment}
        onComment={set("comment")}
        submitLabel={submitLabel}
        busy={busy}
        onCancel={onCancel}
        error={error}
      />
    </form>
  );
}

/** Inhibition rules, read as sentences, each editable and deletable; validation keeps the protected states out. */
export function InhibitRules({
  rules,
  actions,
  busy = false,
}: {
  rules: TInhibitRule[];
  actions?: InhibitActions;
  busy?: boolean;
}) {
  const [editing, setEditing] = useState<number | null>(null);
  const [deleting, setDeleting] = useState<number | null>(null);
  const [error, setError] = useState<unknown>(null);
  const doomed = deleting === null ? undefined : rules[deleting];
  return (
    <div>
      <FormError error={error} />
      {rules.length === 0 && <p className="muted">No inhibition rules.</p>}
      <ul className={styles.tree}>
        {rules.map((rule, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: rules have no id; the position is the JSON path
          <li key={i} className={styles.node} data-testid="inhibit-rule" data-rule-name={ruleLabel(rule, i)}>
            <div className={styles.nodeHead}>
              <span className={styles.nodeName}>{ruleLabel(rule, i)}</span>
              {actions && (
                <span className={styles.nodeActions}>
                  <button
                    type="button"
                    className="button small"
                    disabled={busy}
                    aria-expanded={editing === i}
                    onClick={() => setEditing(editing === i ? null : i)}
                    aria-label={`Edit inhibition rule ${ruleLabel(rule, i)}`}
                  >
                    Edit
                  </button>
                  <button
                    type="button"
                    className="button small danger"
                    disabled={busy}
                    onClick={() => setDeleting(i)}
                    aria-label={`Delete inhibition rule ${ruleLabel(rule, i)}`}
                  >
                    Delete
                  </button>
                </span>
              )}
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
            {actions && editing === i && (
              <InhibitRuleForm
                label={`Edit inhibition rule ${ruleLabel(rule, i)}`}
                initial={rule}
                jsonPath={`$.inhibitRules[${i}]`}
                submitLabel="Save rule"
                busy={busy}
                onCancel={() => setEditing(null)}
                onSubmit={(next, comment) => actions.save(i, next, comment).then(() => setEditing(null))}
              />
            )}
          </li>
        ))}
        <li className="muted" style={{ marginTop: "0.4rem" }}>
          effect_unknown and false_success are never inhibited: a possible duplicate write or a missing
          deliverable always reaches a person.
        </li>
      </ul>
      {actions && (
        <InhibitRuleForm
          label="Add an inhibition rule"
          jsonPath={`$.inhibitRules[${rules.length}]`}
          submitLabel="Add rule"
          busy={busy}
          onSubmit={(rule, comment) => actions.save(null, rule, comment)}
        />
      )}
      {actions && doomed && deleting !== null && (
        <ConfirmDialog
          title={`Delete inhibition rule "${ruleLabel(doomed, deleting)}"?`}
          confirmLabel="Delete rule"
          danger
          busy={busy}
          onCancel={() => setDeleting(null)}
          onConfirm={() => {
            const index = deleting;
            setDeleting(null);
            setEditing(null);
            setError(null);
            actions.remove(index).catch((refused: unknown) => setError(refused));
          }}
        >
          <p style={{ margin: 0 }}>
            The alerts it mutes will notify again. Saved as a new config version: it can be restored from the
            history.
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}
