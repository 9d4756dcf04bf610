import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { SignInForm } from "@/components/auth/SignInForm";
import { DatabaseUnavailable } from "@/components/ui/DatabaseUnavailable";
import { safeNextPath } from "@/lib/dashboard/safe-next-path";
import { currentPageUser, DATABASE_UNAVAILABLE, unlessDatabaseDown } from "@/lib/server/auth/page-guard";
import { needsFirstRunSetup } from "@/lib/server/auth/sessions";

export const metadata: Metadata = { title: "Sign in" };
export const dynamic = "force-dynamic";

export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<{ next?: string | string[] }>;
}) {
  const next = safeNextPath((await searchParams).next);
  const found = await unlessDatabaseDown(async () => {
    const user = await currentPageUser();
    return { user, firstRun: !user && (await needsFirstRunSetup()) };
  });
  if (found === DATABASE_UNAVAILABLE) return <DatabaseUnavailable />;
  if (found.user) redirect(next);
  if (found.firstRun) redirect("/setup");
  return <SignInForm next={next} />;
}
