import type { ReactNode } from "react";
import { AppHeader } from "@/components/layout/AppHeader";
import { QueryProvider } from "@/components/providers/QueryProvider";
import { DatabaseUnavailable } from "@/components/ui/DatabaseUnavailable";
import { DATABASE_UNAVAILABLE, requirePageUser, unlessDatabaseDown } from "@/lib/server/auth/page-guard";

// Every dashboard page is behind this check, on the server: no session, no page (API routes check on their own).
export const dynamic = "force-dynamic";

export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const user = await unlessDatabaseDown(requirePageUser);
  if (user === DATABASE_UNAVAILABLE) return <DatabaseUnavailable />;
  return (
    <QueryProvider>
      <AppHeader username={user.username} />
      <main id="main">{children}</main>
    </QueryProvider>
  );
}
