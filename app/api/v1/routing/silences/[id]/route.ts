import { deleteSilence, putSilence } from "@/lib/server/alerts/api/silences-api";
import { apiRoute } from "@/lib/server/http/api-route";

export const dynamic = "force-dynamic";

export const PUT = apiRoute<{ id: string }>("admin", ({ request, params }) => putSilence(request, params.id));
export const DELETE = apiRoute<{ id: string }>("admin", ({ params }) => deleteSilence(params.id));
