import type { Metadata } from "next";
import { RoutingView } from "@/components/routing/RoutingView";

export const metadata: Metadata = { title: "Routing" };

export default function RoutingPage() {
  return <RoutingView />;
}
