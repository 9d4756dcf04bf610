// Inhibition: a firing source alert suppresses matching target alerts that share the `equal`
// labels. Shipped default: an unresolved needs_auth on a server inhibits that server's other
// non-green alerts — fix the credentials first, the rest is probably a consequence.
//
// effect_unknown and false_success are never inhibited: validation rejects a rule that could
// target them, and isInhibited refuses again at match time in case a rule slipped through.
import type { TInhibitRule } from "./config";
import { allMatch, type Matcher, matcherMatches, mustParseMatcher } from "./matcher";
import {
  type Alert,
  type AlertLabels,
  isProtectedState,
  PROTECTED_STATES,
  STATES,
  type State,
} from "./types";

export interface CompiledInhibitRule {
  index: number;
  name?: string;
  sourceMatchers: Matcher[];
  targetMatchers: Matcher[];
  equal: string[];
}

export function compileInhibitRule(rule: TInhibitRule, index: number): CompiledInhibitRule {
  return {
    index,
    name: rule.name,
    sourceMatchers: rule.sourceMatchers.map(mustParseMatcher),
    targetMatchers: rule.targetMatchers.map(mustParseMatcher),
    equal: rule.equal,
  };
}

/**
 * Protected states these target matchers could select. A rule is safe only when a `state`
 * matcher explicitly excludes each protected state; matchers on other labels cannot prove that.
 */
export function protectedStatesTargeted(targetMatchers: readonly Matcher[]): State[] {
  return PROTECTED_STATES.filter(
    (state) => !targetMatchers.some((m) => m.name === "state" && !matcherMatches(m, { state })),
  );
}

/**
 * The states a firing alert can be in and still be a source of some rule (an alert's `state` label is its state).
 * The worker reads only firing alerts in these states, not every firing alert, on each tick.
 */
export function inhibitionSourceStates(rules: readonly CompiledInhibitRule[]): State[] {
  return STATES.filter((state) =>
    rules.some((rule) =>
      rule.sourceMatchers.every((m) => m.name !== "state" || matcherMatches(m, { state })),
    ),
  );
}

// Unlike Alertmanager, an `equal` label missing on both sides does NOT count as equal: two chains
// whose server never answered are not "the same server".
function sameOn(equal: readonly string[], a: AlertLabels, b: AlertLabels): boolean {
  return equal.every((name) => {
    const left = a[name];
    return left !== undefined && left !== "" && left === b[name];
  });
}

export interface Inhibition {
  rule: CompiledInhibitRule;
  source: Alert;
}

/** The first (rule, source alert) pair that inhibits `alert`, or undefined. */
export function findInhibition(
  alert: Alert,
  firingAlerts: readonly Alert[],
  rules: readonly CompiledInhibitRule[],
): Inhibition | undefined {
  if (isProtectedState(alert.state)) return undefined;
  for (const rule of rules) {
    if (!allMatch(rule.targetMatchers, alert.labels)) continue;
    const source = firingAlerts.find(
      (candidate) =>
        // An alert never inhibits itself (it may match both sides of a rule).
        candidate.fingerprint !== alert.fingerprint &&
        allMatch(rule.sourceMatchers, candidate.labels) &&
        sameOn(rule.equal, candidate.labels, alert.labels),
    );
    if (source) return { rule, source };
  }
  return undefined;
}

export function isInhibited(
  alert: Alert,
  firingAlerts: readonly Alert[],
  rules: readonly CompiledInhibitRule[],
): boolean {
  return findInhibition(alert, firingAlerts, rules) !== undefined;
}

/**
 * The firing source alerts of every rule, keyed by their `equal` label values, so deciding whether an alert is
 * inhibited costs one lookup per rule instead of a scan of every firing alert (the worker evaluates thousands of
 * alerts per tick). Same answers as findInhibition.
 */
export class InhibitionIndex {
  private readonly sources: Map<string, Alert[]>[];

  constructor(
    private readonly rules: readonly CompiledInhibitRule[],
    firingAlerts: readonly Alert[],
  ) {
    this.sources = rules.map((rule) => {
      const byKey = new Map<string, Alert[]>();
      for (const candidate of firingAlerts) {
        if (!allMatch(rule.sourceMatchers, candidate.labels)) continue;
        const key = equalKey(rule.equal, candidate.labels);
        if (key !== undefined) byKey.set(key, [...(byKey.get(key) ?? []), candidate]);
      }
      return byKey;
    });
  }

  find(alert: Alert): Inhibition | undefined {
    if (isProtectedState(alert.state)) return undefined;
    for (const [i, rule] of this.rules.entries()) {
      if (!allMatch(rule.targetMatchers, alert.labels)) continue;
      const key = equalKey(rule.equal, alert.labels);
      const source =
        key === undefined
          ? undefined
          : this.sources[i]?.get(key)?.find((c) => c.fingerprint !== alert.fingerprint);
      if (source) return { rule, source };
    }
    return undefined;
  }
}

/** The `equal` labels' values as one key; undefined when one is missing or empty (never "the same"). */
function equalKey(equal: readonly string[], labels: AlertLabels): string | undefined {
  const values = equal.map((name) => labels[name]);
  return values.every((v) => v !== undefined && v !== "") ? JSON.stringify(values) : undefined;
}

/**
 * The label sets a firing alert must contain to inhibit one of `alerts`: each rule's `equal` values of every alert its
 * target matchers accept. A flush of just these alerts needs only the sources holding one of them (those are the only
 * ones InhibitionIndex would find for them), not every firing source alert.
 */
export function inhibitionSourceLabels(
  rules: readonly CompiledInhibitRule[],
  alerts: readonly Alert[],
): AlertLabels[] {
  const sets = new Map<string, AlertLabels>();
  for (const alert of alerts) {
    if (isProtectedState(alert.state)) continue;
    for (const rule of rules) {
      if (!allMatch(rule.targetMatchers, alert.labels)) continue;
      const values = rule.equal.map((name) => alert.labels[name]);
      if (!values.every((v) => v !== undefined && v !== "")) continue;
      const labels = Object.fromEntries(rule.equal.map((name, i) => [name, values[i] as string]));
      sets.set(JSON.stringify(labels), labels);
    }
  }
  return [...sets.values()];
}
