import type { Metadata } from "next";
import { Suspense } from "react";
import { AuditView } from "@/components/audit/AuditView";
import { LoadingState } from "@/components/ui/StatusViews";

export const metadata: Metadata = { title: "Audit log" };

export default function AuditPage() {
  return (
    <Suspense fallback={<LoadingState label="Loading the audit log" />}>
      <AuditView />
    </Suspense>
  );
}
