import type { Metadata } from "next";
import { NotificationTargetView } from "@/components/account/NotificationTargetView";

export const metadata: Metadata = { title: "My notifications" };

export default function AccountNotificationsPage() {
  return <NotificationTargetView />;
}
