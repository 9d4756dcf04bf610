import { readChainTriage } from "@/lib/server/db/chain-triage";
import { notFound } from "@/lib/server/http/api-error";
import { apiRoute } from "@/lib/server/http/api-route";
import { readJsonBody } from "@/lib/server/http/read-json";
import { ZTriageActionBody } from "@/lib/triage/schemas";
import { triageChain } from "@/lib/server/triage/triage-service";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ chainId: string }>("read", async ({ params }) => {
  const triage = await readChainTriage(params.chainId);
  if (!triage) throw notFound("chain");
  return Response.json(triage);
});

export const POST = apiRoute<{ chainId: string }>("admin", async ({ request, params, caller }) => {
  const body = await readJsonBody(request, ZTriageActionBody);
  return Response.json({ item: await triageChain(params.chainId, body, caller) });
});

const notAllowed = methodNotAllowed("GET", "POST");
export { notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
