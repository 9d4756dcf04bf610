import type { Metadata } from "next";
import Link from "next/link";
import { AuthCard } from "@/components/auth/AuthCard";
import { DatabaseUnavailable } from "@/components/ui/DatabaseUnavailable";
import { JoinForm } from "@/components/users/JoinForm";
import { DATABASE_UNAVAILABLE, unlessDatabaseDown } from "@/lib/server/auth/page-guard";
import { ApiError } from "@/lib/server/http/api-error";
import { lookupInvitation } from "@/lib/server/users/invitations";

export const metadata: Metadata = { title: "Join the team" };
export const dynamic = "force-dynamic";

/** The page of an invitation link (`/join?token=…`): public, like sign-in. */
export default async function JoinPage({
  searchParams,
}: {
  searchParams: Promise<{ token?: string | string[] }>;
}) {
  const raw = (await searchParams).token;
  const token = typeof raw === "string" ? raw : "";
  const found = await unlessDatabaseDown(async () => {
    try {
      return { invite: await lookupInvitation(token) };
    } catch (error) {
      if (error instanceof ApiError) return { problem: error.message };
      throw error;
    }
  });
  if (found === DATABASE_UNAVAILABLE) return <DatabaseUnavailable />;
  if ("problem" in found)
    return (
      <AuthCard title="This invitation cannot be used" intro={`${found.problem}.`}>
        <p>
          Ask an admin for a new link, or <Link href="/sign-in">sign in</Link> if you already have an account.
        </p>
      </AuthCard>
    );
  return <JoinForm token={token} role={found.invite.role} expiresAt={found.invite.expiresAt} />;
}
