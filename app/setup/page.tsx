import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { SetupForm } from "@/components/auth/SetupForm";
import { DatabaseUnavailable } from "@/components/ui/DatabaseUnavailable";
import { DATABASE_UNAVAILABLE, unlessDatabaseDown } from "@/lib/server/auth/page-guard";
import { needsFirstRunSetup } from "@/lib/server/auth/sessions";

export const metadata: Metadata = { title: "First-run setup" };
export const dynamic = "force-dynamic";

/** Only while no user exists: afterwards the page is gone and /sign-in is the way in. */
export default async function SetupPage() {
  const firstRun = await unlessDatabaseDown(needsFirstRunSetup);
  if (firstRun === DATABASE_UNAVAILABLE) return <DatabaseUnavailable />;
  if (!firstRun) redirect("/sign-in");
  return <SetupForm />;
}
