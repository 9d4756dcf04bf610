"use client";

import { type ChangeEvent, type FormEvent, type ReactNode, useId, useState } from "react";
import type { RouteFields } from "@/lib/routing/route-edit";
import { SEVERITIES } from "@/lib/routing/types";
import { FieldIssues, issuesUnder } from "./FormError";
import { SaveVersionFooter } from "./SaveVersionFooter";
import styles from "./Routing.module.css";

const lines = (text: string) =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);

/** "Group by" as typed: empty inherits the parent's, "nothing" is one group for the route, else label names. */
function parseGroupBy(text: string): string[] | undefined {
  const trimmed = text.trim();
  if (trimmed === "") return undefined;
  if (trimmed === "nothing") return [];
  return trimmed
    .split(",")
    .map((label) => label.trim())
    .filter(Boolean);
}

const showGroupBy = (groupBy: string[] | undefined) =>
  groupBy === undefined ? "" : groupBy.length === 0 ? "nothing" : groupBy.join(", ");

const optional = (text: string) => (text.trim() ? text.trim() : undefined);

type Draft = Record<
  "id" | "name" | "receiver" | "matchers" | "groupBy" | "groupWait" | "groupInterval" | "repeatInterval",
  string
> &
  Record<"severity" | "delay" | "comment", string> & { continueOn: boolean; confirmOnNextRecord: boolean };

const draftOf = (route: RouteFields): Draft => ({
  id: route.id ?? "",
  name: route.name ?? "",
  receiver: route.receiver ?? "",
  matchers: (route.matchers ?? []).join("\n"),
  groupBy: showGroupBy(route.groupBy),
  groupWait: route.groupWait ?? "",
  groupInterval: route.groupInterval ?? "",
  repeatInterval: route.repeatInterval ?? "",
  severity: route.severity ?? "",
  delay: route.delay ?? "",
  comment: "",
  continueOn: route.continue === true,
  confirmOnNextRecord: route.confirmOnNextRecord === true,
});

function fieldsOf(draft: Draft): RouteFields {
  return {
    id: optional(draft.id),
    name: optional(draft.name),
    receiver: optional(draft.receiver),
    matchers: lines(draft.matchers),
    continue: draft.continueOn || undefined,
    groupBy: parseGroupBy(draft.groupBy),
    groupWait: optional(draft.groupWait),
    groupInterval: optional(draft.groupInterval),
    repeatInterval: optional(draft.repeatInterval),
    severity: (draft.severity || undefined) as RouteFields["severity"],
    delay: optional(draft.delay),
    confirmOnNextRecord: (draft.delay.trim() !== "" && draft.confirmOnNextRecord) || undefined,
  };
}

/**
 * Every option of one route (not its subroutes), for adding or editing it in place. Problems the server reports
 * for this route appear next to their field (`jsonPath` is where the route sits in the saved config).
 */
export function RouteForm({
  label,
  initial,
  channels,
  jsonPath,
  submitLabel,
  onSubmit,
  onCancel,
  busy,
  isMisplacedCatchAll,
  inheritReceiver,
  warnWhenPristine = true,
  children,
}: {
  label: string;
  initial: RouteFields;
  channels: string[];
  jsonPath: string;
  submitLabel: string;
  onSubmit: (fields: RouteFields, comment: string) => Promise<unknown>;
  onCancel?: () => void;
  busy: boolean;
  /** Whether a route without matchers would sit before a sibling where the form would put it. */
  isMisplacedCatchAll: boolean;
  /** An edited route may inherit its parent's channel; a new one names its own by default. */
  inheritReceiver: boolean;
  /** Whether an untouched form already warns about missing matchers (an edit) or only once typed in (an add). */
  warnWhenPristine?: boolean;
  /** Extra fields (the add form's position). */
  children?: ReactNode;
}) {
  const uid = useId();
  const [draft, setDraft] = useState<Draft>(() => draftOf(initial));
  const [error, setError] = useState<unknown>(null);
  const [pristine, setPristine] = useState(true);
  type TextKey = { [K in keyof Draft]: Draft[K] extends string ? K : never }[keyof Draft];
  const set =
    (key: TextKey) => (event: ChangeEvent<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>) => {
      const value = event.target.value;
      setPristine(false);
      setDraft((d) => ({ ...d, [key]: value }));
    };
  const flag = (key: "continueOn" | "confirmOnNextRecord") => (event: ChangeEvent<HTMLInputElement>) =>
    setDraft((d) => ({ ...d, [key]: event.target.checked }));
  const noMatchers = lines(draft.matchers).length === 0 && (warnWhenPristine || !pristine);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    await onSubmit(fieldsOf(draft), draft.comment.trim()).then(
      () => {
        setDraft(draftOf(initial));
        setPristine(true);
      },
      (refused: unknown) => setError(refused),
    );
  };

  const field = (key: keyof RouteFields, text: string, input: ReactNode, wide = false) => (
    <div className={`field ${wide ? styles.wide : ""}`}>
      <label htmlFor={`${uid}-${key}`}>{text}</label>
      {input}
      <FieldIssues id={`${uid}-${key}-issues`} error={error} path={`${jsonPath}.${key}`} />
    </div>
  );
  const describedBy = (key: string) =>
    issuesUnder(error, `${jsonPath}.${key}`).length > 0 ? `${uid}-${key}-issues` : undefined;
  const text = (key: TextKey & keyof RouteFields, placeholder?: string) => (
    <input
      id={`${uid}-${key}`}
      value={draft[key]}
      onChange={set(key)}
      placeholder={placeholder}
      aria-describedby={describedBy(key)}
    />
  );

  return (
    <form className={styles.form} onSubmit={submit} aria-label={label}>
      {field("name", "Route name", text("name", "payments team"))}
      {field(
        "receiver",
        "Channel",
        <select id={`${uid}-receiver`} value={draft.receiver} onChange={set("receiver")}>
          {(inheritReceiver || draft.receiver === "") && <option value="">the parent's channel</option>}
          {channels.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>,
      )}
      {field("groupWait", "Group wait (optional)", text("groupWait", "30s"))}
      {field("groupInterval", "Group interval (optional)", text("groupInterval", "5m"))}
      {field("repeatInterval", "Repeat interval (optional)", text("repeatInterval", "4h"))}
      {field("groupBy", "Group by (optional)", text("groupBy", "server, state — or: nothing"))}
      {field(
        "severity",
        "Severity override",
        <select id={`${uid}-severity`} value={draft.severity} onChange={set("severity")}>
          <option value="">the alert's own</option>
          {SEVERITIES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>,
      )}
      {field("delay", "Hold new alerts for (optional)", text("delay", "10m"))}
      {field("id", "Route id (optional)", text("id", "payments-team"))}
      {children}
      {field(
        "matchers",
        "Matchers, one per line",
        <textarea
          id={`${uid}-matchers`}
          value={draft.matchers}
          onChange={set("matchers")}
          aria-describedby={describedBy("matchers") ?? (noMatchers ? `${uid}-catch-all` : undefined)}
          placeholder={'label.team="payments"\nstate=~"tool_failed|protocol_error"'}
        />,
        true,
      )}
      {noMatchers && (
        <p
          id={`${uid}-catch-all`}
          className={`${styles.wide} ${isMisplacedCatchAll ? styles.warning : "muted"}`}
          role={isMisplacedCatchAll ? "alert" : undefined}
        >
          {isMisplacedCatchAll
            ? "No matchers: this route would catch every alert that reaches it, so the routes after it would " +
              "never see one. A route without matchers must be the last one (the explicit catch-all); add a " +
              "matcher or put it last."
            : "No matchers: this is the catch-all, taking every alert that no earlier route took."}
        </p>
      )}
      <SaveVersionFooter
        comment={draft.comment}
        onComment={set("comment")}
        submitLabel={submitLabel}
        busy={busy}
        onCancel={onCancel}
        error={error}
        extra={
          <>
            <label>
              <input type="checkbox" checked={draft.continueOn} onChange={flag("continueOn")} />
              continue to later routes
            </label>
            {draft.delay.trim() !== "" && (
              <label>
                <input
                  type="checkbox"
                  checked={draft.confirmOnNextRecord}
                  onChange={flag("confirmOnNextRecord")}
                />
                send early when the next record confirms
              </label>
            )}
          </>
        }
      />
    </form>
  );
}
