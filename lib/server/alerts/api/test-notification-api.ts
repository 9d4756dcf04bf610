import { z } from "zod";
import { sampleNotification } from "@/lib/routing/sample-notification";
import { insertDeliveries } from "../../db/alerting-deliveries";
import { poolSql } from "../../db/sql";
import { ApiError } from "../../http/api-error";
import { deliveryRowsFor } from "../delivery-rows";
import { currentRouting } from "../routing-config";
import { wakeDeliveriesEverywhere } from "../wake-ups";
import { parseBody, readJson } from "./read-body";

const ZBody = z.strictObject({ channel: z.string().min(1).max(64) });

/**
 * POST test-notification: a clearly labelled sample alert to every target of one channel, through the same delivery
 * path as real notifications (queued, signed, retried, logged), so the log shows exactly what the receiver got.
 */
export async function postTestNotification(request: Request): Promise<Response> {
  const { channel: name } = parseBody(ZBody, await readJson(request));
  const { compiled } = await currentRouting();
  const channel = compiled.channels.get(name);
  const issue = (code: string, message: string) => [{ path: "$.channel", code, message }];
  if (!channel)
    throw new ApiError(
      404,
      "not_found",
      `no channel named "${name}"`,
      issue("unknown_channel", "not in the config"),
    );
  if (channel.targets.length === 0)
    throw new ApiError(
      422,
      "no_targets",
      `channel "${name}" has no targets`,
      issue("no_targets", "add a target first"),
    );
  const now = new Date();
  const ids = await insertDeliveries(
    poolSql(),
    deliveryRowsFor(sampleNotification(name, now.toISOString()), channel, "test"),
    now,
  );
  await wakeDeliveriesEverywhere();
  return Response.json({ deliveries: ids.map(String) }, { status: 202 });
}
