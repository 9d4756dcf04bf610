// A little triage already done in the demo, so the queues show the workflow (owners, notes, a reconciliation)
// and not only untouched items. Goes through the same services as the dashboard's buttons.
import { listQueueChains } from "../../lib/server/db/queue-chains";
import { upsertPasswordlessResponder } from "../../lib/server/db/team-members";
import type { Caller } from "../../lib/server/http/authenticate";
import { reconcile } from "../../lib/server/triage/reconcile-service";
import { triageChain } from "../../lib/server/triage/triage-service";

export async function seedTriage(runTag: string): Promise<string> {
  const responder = await upsertPasswordlessResponder("demo-oncall");
  const demoOperator: Caller = {
    kind: "user",
    userId: responder.id,
    username: responder.username,
    role: "responder",
    sessionId: "demo",
  };
  const open = async (queue: "false_success" | "effect_unknown") =>
    (await listQueueChains({ queue, status: "open", order: "desc", limit: 20 })).entries
      .map((entry) => entry.chain)
      .filter((chain) => chain.chainId.includes(runTag) && chain.state === queue);
  const falseSuccess = await open("false_success");
  const effectUnknown = await open("effect_unknown");
  const done: string[] = [];
  const [first, second] = falseSuccess;
  if (first) {
    await triageChain(first.chainId, { action: "acknowledge", queue: "false_success" }, demoOperator);
    await triageChain(
      first.chainId,
      { action: "assign", queue: "false_success", assigneeId: responder.id },
      demoOperator,
    );
    await triageChain(
      first.chainId,
      {
        action: "note",
        queue: "false_success",
        note: "Deliverable not in the destination; asked the tool owner.",
      },
      demoOperator,
    );
    done.push("acknowledged and assigned a false success");
  }
  if (second) {
    await triageChain(second.chainId, { action: "acknowledge", queue: "false_success" }, demoOperator);
    await triageChain(
      second.chainId,
      { action: "resolve", queue: "false_success", note: "Re-ran by hand; verified." },
      demoOperator,
    );
    done.push("resolved a false success");
  }
  const [toReconcile, toAcknowledge] = effectUnknown;
  if (toReconcile) {
    await reconcile(
      toReconcile.chainId,
      { status: "absent", note: "No row for this operation key." },
      demoOperator,
    );
    done.push("reconciled an effect-unknown write as absent");
  }
  if (toAcknowledge) {
    await triageChain(
      toAcknowledge.chainId,
      { action: "acknowledge", queue: "effect_unknown", note: "Checking the destination." },
      demoOperator,
    );
    done.push("acknowledged an effect-unknown write");
  }
  return done.length
    ? `demo triage by demo-oncall: ${done.join("; ")}`
    : "demo triage: no queue items this time";
}
