import { deleteSilence, putSilence } from "@/lib/server/alerts/api/silences-api";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";

export const dynamic = "force-dynamic";

export const PUT = apiRoute<{ id: string }>("admin", ({ request, params }) => putSilence(request, params.id));
export const DELETE = apiRoute<{ id: string }>("admin", ({ params }) => deleteSilence(params.id));

const notAllowed = methodNotAllowed("PUT", "DELETE");
export { notAllowed as GET, notAllowed as POST, notAllowed as PATCH };
