import { z } from "zod";
import type { RouteTestAnswer } from "@/lib/dashboard/routing-api-types";
import { type Classification, classify } from "@/lib/classifier";
import { validateRecord } from "@/lib/contract";
import { alertContextFromRecord } from "@/lib/routing/context";
import { explainRouting } from "@/lib/routing/route-test";
import type { ClassifiedChain, Layer, State, Transport } from "@/lib/routing/types";
import { readFiringAlerts } from "../../db/routing-alerts";
import { activeSilences } from "../../db/routing-silences";
import { findChainRow } from "../../db/chains";
import { ApiError, notFound } from "../../http/api-error";
import { alertOf, classifiedChainOf } from "@/lib/routing/alert-rows";
import { currentRouting } from "../routing-config";

export const ZRouteTest = z.union([
  z.strictObject({ record: z.unknown(), at: z.iso.datetime({ offset: true }).optional() }),
  z.strictObject({ chainId: z.string().min(1).max(128) }),
]);

function chainOfRecord(body: unknown, at: string | undefined) {
  const validated = validateRecord(body);
  if (!validated.ok) {
    throw new ApiError(
      422,
      validated.code,
      "the pasted record is not a valid health record",
      validated.issues.map((issue) => ({ ...issue, path: issue.path.replace(/^\$/, "$.record") })),
    );
  }
  const { record } = validated;
  let classification: Classification;
  try {
    classification = classify(record, at);
  } catch (error) {
    throw new ApiError(422, "invalid_at", error instanceof Error ? error.message : "bad time", [
      { path: "$.at", code: "invalid_at", message: "must be an RFC 3339 time not before observedAt" },
    ]);
  }
  const chain: ClassifiedChain = {
    chainId: record.chainId,
    sessionId: record.session.id,
    state: classification.state as State,
    layer: classification.layer as Layer,
    reasons: [...classification.reasons],
    ...(classification.retrySafe !== undefined ? { retrySafe: classification.retrySafe } : {}),
    ...(classification.shadowed
      ? {
          shadowed: { state: classification.shadowed.state as State, reason: classification.shadowed.reason },
        }
      : {}),
    ...(record.session.server ? { server: record.session.server.name } : {}),
    client: record.session.client.name,
    ...(record.call ? { tool: record.call.tool } : {}),
    transport: record.session.transport as Transport,
    labels: record.labels ?? {},
  };
  return { chain, context: alertContextFromRecord(record) };
}

async function chainOfStored(chainId: string) {
  const row = await findChainRow(chainId);
  if (!row) throw notFound("chain");
  return { chain: classifiedChainOf(row), context: undefined };
}

/**
 * POST route-test: which channels a pasted record (validated and classified here, stored nowhere) or a stored chain
 * would reach right now, and why — the same evaluation the delivery worker runs, with the current silences and the
 * alerts firing elsewhere for inhibition.
 */
export async function postRouteTest(body: z.infer<typeof ZRouteTest>): Promise<RouteTestAnswer> {
  const { chain, context } =
    "chainId" in body ? await chainOfStored(body.chainId) : chainOfRecord(body.record, body.at);
  const now = new Date();
  const [routing, silences, firing] = await Promise.all([
    currentRouting(),
    activeSilences(now),
    readFiringAlerts({ exceptChain: chain.chainId }, 20_000),
  ]);
  const result = explainRouting(routing.compiled, chain, now.getTime(), {
    silences,
    firingAlerts: firing.map(alertOf),
  });
  return {
    chain: {
      chainId: chain.chainId,
      state: chain.state,
      layer: chain.layer,
      reasons: chain.reasons,
      retrySafe: chain.retrySafe ?? null,
      shadowed: chain.shadowed ?? null,
    },
    ...(context ? { context } : {}),
    ...result,
  };
}
