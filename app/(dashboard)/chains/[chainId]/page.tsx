import type { Metadata } from "next";
import { ChainView } from "@/components/evidence/ChainView";

export const metadata: Metadata = { title: "Chain" };

export default async function ChainPage({ params }: { params: Promise<{ chainId: string }> }) {
  // Chain ids are [A-Za-z0-9._:-]: decoding cannot mangle one.
  const chainId = decodeURIComponent((await params).chainId);
  return <ChainView chainId={chainId} />;
}
