import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { SetupForm } from "@/components/auth/SetupForm";
import { needsFirstRunSetup } from "@/lib/server/auth/sessions";

export const metadata: Metadata = { title: "First-run setup" };
export const dynamic = "force-dynamic";

/** Only while no user exists: afterwards the page is gone and /sign-in is the way in. */
export default async function SetupPage() {
  if (!(await needsFirstRunSetup())) redirect("/sign-in");
  return <SetupForm />;
}
