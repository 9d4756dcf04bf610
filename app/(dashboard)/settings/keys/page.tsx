import type { Metadata } from "next";
import { KeysView } from "@/components/keys/KeysView";

export const metadata: Metadata = { title: "Ingestion keys" };

export default function KeysPage() {
  return <KeysView />;
}
