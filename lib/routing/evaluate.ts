// The one routing decision for one alert at one instant: where it goes (routes + group keys) and
// whether it is held back (silence, inhibition). The delivery worker and the route test share it,
// so the panel can never disagree with what is actually sent.
import type { CompiledRouting } from "./compile";
import { groupKey } from "./group";
import { findInhibition, type Inhibition, type InhibitionIndex } from "./inhibit";
import { matchRoutes, type RouteMatch } from "./match";
import { type CompiledSilence, findSilence } from "./silence";
import type { Alert } from "./types";

export interface RoutedMatch extends RouteMatch {
  /** groupKey(match, alert.labels): the notification group this alert joins. */
  groupKey: string;
}

export interface AlertDecision {
  alert: Alert;
  routes: RoutedMatch[];
  silence?: CompiledSilence;
  inhibition?: Inhibition;
  /** Not silenced and not inhibited. Delay (RouteMatch.delayMs) is the caller's clock to keep. */
  notifies: boolean;
}

export interface EvaluateOptions {
  /** Silences kept outside the config (e.g. in the database), already compiled. */
  extraSilences?: readonly CompiledSilence[];
  /** Every alert currently firing (any chain), for inhibition. */
  firingAlerts?: readonly Alert[];
  /** The same, pre-indexed (built from compiled.inhibitRules): for evaluating many alerts at once. */
  inhibitionIndex?: InhibitionIndex;
}

export function evaluateAlert(
  compiled: CompiledRouting,
  alert: Alert,
  nowMs: number,
  options: EvaluateOptions = {},
): AlertDecision {
  const routes = matchRoutes(compiled.root, alert.labels).map((m) => ({
    ...m,
    groupKey: groupKey(m, alert.labels),
  }));
  const silences = [...compiled.silences, ...(options.extraSilences ?? [])];
  const silence = findSilence(alert.labels, silences, nowMs);
  const inhibition = options.inhibitionIndex
    ? options.inhibitionIndex.find(alert)
    : findInhibition(alert, options.firingAlerts ?? [], compiled.inhibitRules);
  return {
    alert,
    routes,
    ...(silence ? { silence } : {}),
    ...(inhibition ? { inhibition } : {}),
    notifies: !silence && !inhibition,
  };
}
