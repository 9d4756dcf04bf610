// Each configured target's delivery health, from the deliveries of the last week: the routing page lists it beside
// the target, and the dashboard's banner names the targets whose newest attempt failed.
import { type TargetHealthAnswer, targetHealth } from "@/lib/routing/target-health";
import { poolSql } from "../db/sql";
import { readTargetDeliveryFacts } from "../db/routing-target-health";
import { currentRouting } from "./routing-config";

const WINDOW_MS = 7 * 24 * 60 * 60_000;

/** Every target of the config in force, in config order; one nothing was sent to in the window is `idle`. */
export async function readTargetHealth(now = new Date()): Promise<TargetHealthAnswer> {
  const since = new Date(now.getTime() - WINDOW_MS);
  const [{ config }, facts] = await Promise.all([
    currentRouting(),
    readTargetDeliveryFacts(poolSql(), since),
  ]);
  const byTarget = new Map(facts.map((fact) => [`${fact.channel}\u0000${fact.targetIndex}`, fact]));
  const targets = config.channels.flatMap((channel) =>
    channel.targets.map((target, targetIndex) => {
      const fact = byTarget.get(`${channel.name}\u0000${targetIndex}`);
      const health = fact
        ? targetHealth(fact)
        : targetHealth({
            channel: channel.name,
            targetIndex,
            lastSuccessAt: null,
            lastAttempt: null,
            lastFailure: null,
            dead: 0,
            retrying: 0,
          });
      return { ...health, type: target.type };
    }),
  );
  return { since: since.toISOString(), targets };
}
