import type { Metadata } from "next";
import { AccountView } from "@/components/account/AccountView";
import type { Role } from "@/lib/auth/roles";
import { currentPageUser } from "@/lib/server/auth/page-guard";

export const metadata: Metadata = { title: "Your account" };
export const dynamic = "force-dynamic";

export default async function AccountPage() {
  // The (dashboard) layout has already required a session.
  const user = await currentPageUser();
  return <AccountView username={user?.username ?? ""} role={(user?.role ?? "viewer") as Role} />;
}
