import { signOutRoute } from "@/lib/server/auth/auth-routes";

export const dynamic = "force-dynamic";

export const POST = signOutRoute;
