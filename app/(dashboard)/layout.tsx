import { notFound } from "next/navigation";
import type { ReactNode } from "react";
import { CurrentUserProvider } from "@/components/auth/CurrentUser";
import { AppHeader } from "@/components/layout/AppHeader";
import { DeliveryBanner } from "@/components/layout/DeliveryBanner";
import { FailingTargetsBanner } from "@/components/layout/FailingTargetsBanner";
import { QueryProvider } from "@/components/providers/QueryProvider";
import { DatabaseUnavailable } from "@/components/ui/DatabaseUnavailable";
import { roleAtLeast, ZRole } from "@/lib/auth/roles";
import { deliveryNotice } from "@/lib/routing/undelivered";
import { currentRouting } from "@/lib/server/routing/routing-config";
import {
  DATABASE_UNAVAILABLE,
  requestedPagePath,
  requirePageUser,
  unlessDatabaseDown,
} from "@/lib/server/auth/page-guard";
import { namesMissingResource } from "@/lib/server/reading/page-resource";

// Every dashboard page is behind this check, on the server: no session, no page (API routes check on their own).
export const dynamic = "force-dynamic";

export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const user = await unlessDatabaseDown(requirePageUser);
  if (user === DATABASE_UNAVAILABLE) return <DatabaseUnavailable />;
  // An unknown chain or session id: a real 404, decided before the page streams (see namesMissingResource).
  const missing = await unlessDatabaseDown(async () => namesMissingResource(await requestedPagePath()));
  if (missing === true) notFound();
  // The config in force (cached while it stays the newest version): one indexed lookup a page.
  const notice = deliveryNotice((await currentRouting()).config);
  // What the page offers follows the role read on this request; a row edited to an unknown role reads as a viewer.
  const current = { username: user.username, role: ZRole.catch("viewer").parse(user.role) };
  return (
    <QueryProvider>
      <CurrentUserProvider user={current}>
        <AppHeader user={current} />
        <DeliveryBanner notice={notice} canAddTarget={roleAtLeast(current.role, "admin")} />
        <FailingTargetsBanner />
        <main id="main">{children}</main>
      </CurrentUserProvider>
    </QueryProvider>
  );
}
