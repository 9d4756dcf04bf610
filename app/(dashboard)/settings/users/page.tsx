import type { Metadata } from "next";
import { SettingsTabs } from "@/components/users/SettingsTabs";
import { UsersView } from "@/components/users/UsersView";
import { roleAtLeast } from "@/lib/auth/roles";
import { currentPageUser } from "@/lib/server/auth/page-guard";

export const metadata: Metadata = { title: "Users" };
export const dynamic = "force-dynamic";

export default async function UsersPage() {
  // The layout has checked the session; the API checks the role again on every call.
  const user = await currentPageUser();
  if (!user || !roleAtLeast(user.role, "admin"))
    return (
      <div className="stack">
        <SettingsTabs current="users" />
        <h1>Users</h1>
        <p>Only admins manage users. You are signed in as a {user?.role ?? "visitor"}.</p>
      </div>
    );
  return (
    <div className="stack">
      <SettingsTabs current="users" />
      <UsersView selfUsername={user.username} />
    </div>
  );
}
