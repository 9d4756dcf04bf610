import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { SignInForm } from "@/components/auth/SignInForm";
import { safeNextPath } from "@/lib/dashboard/safe-next-path";
import { currentPageUser } from "@/lib/server/auth/page-guard";
import { needsFirstRunSetup } from "@/lib/server/auth/sessions";

export const metadata: Metadata = { title: "Sign in" };
export const dynamic = "force-dynamic";

export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<{ next?: string | string[] }>;
}) {
  const next = safeNextPath((await searchParams).next);
  if (await currentPageUser()) redirect(next);
  if (await needsFirstRunSetup()) redirect("/setup");
  return <SignInForm next={next} />;
}
