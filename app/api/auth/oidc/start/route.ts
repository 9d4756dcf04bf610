import { oidcStartRoute } from "@/lib/server/auth/oidc-routes";

export const dynamic = "force-dynamic";

export const GET = oidcStartRoute;
