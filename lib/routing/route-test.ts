// The route test ("which channels would this chain reach, and why?"), like
// `amtool config routes test` but also applying silences and inhibition. Pure: the caller passes
// the chain (from a stored chain or a freshly classified pasted record), the clock and the state.
import { alertsForChain, headlineAlerts } from "./alerts";
import { type CompiledRouting, compileRouting } from "./compile";
import type { TRoutingConfig, TSilence } from "./config";
import { formatDuration } from "./duration";
import { evaluateAlert, type RoutedMatch } from "./evaluate";
import { compileSilence } from "./silence";
import type { Alert, ClassifiedChain, State } from "./types";

export interface RouteTestOptions {
  /** Extra silences (e.g. from the database), applied with the config's own. */
  silences?: readonly TSilence[];
  /** Alerts firing elsewhere, for inhibition; the chain's own alerts are added automatically. */
  firingAlerts?: readonly Alert[];
}

export interface RouteTestRoute extends RoutedMatch {
  ownerRole?: string;
  targetTypes: string[];
  /** False when the channel has no target: the alert is recorded there but reaches nobody. */
  delivered: boolean;
}

export interface RouteTestAlert {
  fingerprint: string;
  state: State;
  shadowedBy?: State;
  labels: Alert["labels"];
  routes: RouteTestRoute[];
  silencedBy?: { id: string; createdBy: string; comment: string; endsAt: string };
  inhibitedBy?: {
    ruleIndex: number;
    ruleName?: string;
    sourceFingerprint: string;
    sourceChainId: string;
    sourceState: State;
  };
  /** Not silenced and not inhibited: its routes' channels would be notified. */
  notifies: boolean;
}

export interface RouteTestResult {
  chainId: string;
  state: State;
  /** Set when the chain raises no alert at all, saying why. */
  quiet?: string;
  alerts: RouteTestAlert[];
  /** Channels the alerts would be routed to (not silenced or inhibited), in first-match order. */
  channels: string[];
  /** Those of `channels` without a target: the alert is recorded, not delivered ("no target"). */
  undelivered: string[];
  /** One human-readable line per decision, for the panel and the CLI. */
  explanation: string[];
}

const isCompiled = (c: TRoutingConfig | CompiledRouting): c is CompiledRouting => "root" in c;

export function explainRouting(
  config: TRoutingConfig | CompiledRouting,
  chain: ClassifiedChain,
  nowMs: number,
  options: RouteTestOptions = {},
): RouteTestResult {
  const compiled = isCompiled(config) ? config : compileRouting(config);
  const extraSilences = (options.silences ?? []).map(compileSilence);
  const own = alertsForChain(chain);
  const firing = [...(options.firingAlerts ?? []), ...own];
  const explanation: string[] = [];
  const quiet = headlineAlerts(chain)
    ? undefined
    : chain.state === "unverified"
      ? `unverified (${chain.reasons[0] ?? "no reason"}) is listed on the coverage page; only outcome.pending alerts`
      : `${chain.state} is quiet: it never alerts`;
  if (quiet) explanation.push(quiet);

  const alerts = own.map((alert): RouteTestAlert => {
    const name = alert.shadowedBy ? `${alert.state} (shadowed by ${alert.shadowedBy})` : alert.state;
    const decision = evaluateAlert(compiled, alert, nowMs, { extraSilences, firingAlerts: firing });
    const routes = decision.routes.map((m): RouteTestRoute => {
      const channel = compiled.channels.get(m.receiver);
      const targetTypes = channel?.targets.map((t) => t.type) ?? [];
      const wait = m.delayMs > 0 ? `, held ${formatDuration(m.delayMs)} first` : "";
      const targets = targetTypes.length > 0 ? targetTypes.join("+") : "recorded, not delivered: no target";
      explanation.push(
        `${name} → ${m.receiver} (${targets}) via ${m.routeName ?? m.routePath}: ${m.matchedBecause.join("; ")}; severity ${m.severity}${wait}`,
      );
      return { ...m, ownerRole: channel?.ownerRole, targetTypes, delivered: targetTypes.length > 0 };
    });
    const { silence, inhibition } = decision;
    if (silence)
      explanation.push(`${name} is silenced by ${silence.id} (${silence.createdBy}: ${silence.comment})`);
    if (inhibition)
      explanation.push(
        `${name} is inhibited by rule ${inhibition.rule.name ?? inhibition.rule.index}: ${inhibition.source.state} on chain ${inhibition.source.chainId}`,
      );
    return {
      fingerprint: alert.fingerprint,
      state: alert.state,
      ...(alert.shadowedBy ? { shadowedBy: alert.shadowedBy } : {}),
      labels: alert.labels,
      routes,
      ...(silence && {
        silencedBy: {
          id: silence.id,
          createdBy: silence.createdBy,
          comment: silence.comment,
          endsAt: new Date(silence.endsAtMs).toISOString(),
        },
      }),
      ...(inhibition && {
        inhibitedBy: {
          ruleIndex: inhibition.rule.index,
          ruleName: inhibition.rule.name,
          sourceFingerprint: inhibition.source.fingerprint,
          sourceChainId: inhibition.source.chainId,
          sourceState: inhibition.source.state,
        },
      }),
      notifies: decision.notifies,
    };
  });
  const notifying = alerts.filter((a) => a.notifies).flatMap((a) => a.routes);
  const channels = [...new Set(notifying.map((r) => r.receiver))];
  const undelivered = [...new Set(notifying.filter((r) => !r.delivered).map((r) => r.receiver))];
  return {
    chainId: chain.chainId,
    state: chain.state,
    ...(quiet ? { quiet } : {}),
    alerts,
    channels,
    undelivered,
    explanation,
  };
}
