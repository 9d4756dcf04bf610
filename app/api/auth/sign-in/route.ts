import { signInRoute, postOnly } from "@/lib/server/auth/auth-routes";

export const dynamic = "force-dynamic";

export const POST = signInRoute;
export const GET = postOnly;
export const PUT = postOnly;
export const PATCH = postOnly;
export const DELETE = postOnly;
