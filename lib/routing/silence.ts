// Silences: an operator's explicit, time-boxed mute. Active on [startsAt, endsAt) — at endsAt the
// silence is over, like Alertmanager.
//
// Why protected states are special: effect_unknown and false_success must always reach a person.
// A broad silence ("server=x during maintenance") must not hide a possible duplicate write, so
// such alerts are muted only by a silence that names their state with an equality matcher — an
// operator who already knows about that very incident (e.g. `chain="c1", state="effect_unknown"`).
import type { TSilence } from "./config";
import { allMatch, type Matcher, mustParseMatcher } from "./matcher";
import { type AlertLabels, isProtectedState } from "./types";

export interface CompiledSilence {
  id: string;
  matchers: Matcher[];
  startsAtMs: number;
  endsAtMs: number;
  createdBy: string;
  comment: string;
}

export function compileSilence(silence: TSilence): CompiledSilence {
  return {
    id: silence.id,
    matchers: silence.matchers.map(mustParseMatcher),
    startsAtMs: Date.parse(silence.startsAt),
    endsAtMs: Date.parse(silence.endsAt),
    createdBy: silence.createdBy,
    comment: silence.comment,
  };
}

export const isSilenceActive = (silence: CompiledSilence, nowMs: number): boolean =>
  silence.startsAtMs <= nowMs && nowMs < silence.endsAtMs;

function namesStateExplicitly(silence: CompiledSilence, state: string): boolean {
  return silence.matchers.some((m) => m.name === "state" && m.op === "=" && m.value === state);
}

/** The first active silence that mutes these labels, or undefined. */
export function findSilence(
  labels: AlertLabels,
  silences: readonly CompiledSilence[],
  nowMs: number,
): CompiledSilence | undefined {
  const state = labels.state ?? "";
  return silences.find(
    (s) =>
      isSilenceActive(s, nowMs) &&
      allMatch(s.matchers, labels) &&
      (!isProtectedState(state) || namesStateExplicitly(s, state)),
  );
}

export function isSilenced(
  labels: AlertLabels,
  silences: readonly CompiledSilence[],
  nowMs: number,
): boolean {
  return findSilence(labels, silences, nowMs) !== undefined;
}
