import { meRoute } from "@/lib/server/auth/auth-routes";

export const dynamic = "force-dynamic";

export const GET = meRoute;
