import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { SignInForm } from "@/components/auth/SignInForm";
import { DatabaseUnavailable } from "@/components/ui/DatabaseUnavailable";
import { oidcErrorMessage } from "@/lib/auth/oidc-identity";
import { safeNextPath } from "@/lib/dashboard/safe-next-path";
import { currentPageUser, DATABASE_UNAVAILABLE, unlessDatabaseDown } from "@/lib/server/auth/page-guard";
import { oidcButtonName } from "@/lib/server/auth/oidc-settings";
import { needsFirstRunSetup } from "@/lib/server/auth/sessions";

export const metadata: Metadata = { title: "Sign in" };
export const dynamic = "force-dynamic";

export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<{ next?: string | string[]; error?: string | string[] }>;
}) {
  const query = await searchParams;
  const next = safeNextPath(query.next);
  const found = await unlessDatabaseDown(async () => {
    const user = await currentPageUser();
    return { user, firstRun: !user && (await needsFirstRunSetup()) };
  });
  if (found === DATABASE_UNAVAILABLE) return <DatabaseUnavailable />;
  if (found.user) redirect(next);
  if (found.firstRun) redirect("/setup");
  // Server-rendered: the provider's name comes from this server's environment, the error from a known code only.
  return <SignInForm next={next} oidcName={oidcButtonName()} initialError={oidcErrorMessage(query.error)} />;
}
