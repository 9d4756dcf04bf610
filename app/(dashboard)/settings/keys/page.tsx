import type { Metadata } from "next";
import { KeysView } from "@/components/keys/KeysView";
import { SettingsTabs } from "@/components/users/SettingsTabs";

export const metadata: Metadata = { title: "Ingestion keys" };

export default function KeysPage() {
  return (
    <div className="stack">
      <SettingsTabs current="keys" />
      <KeysView />
    </div>
  );
}
