import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { ChainView } from "@/components/evidence/ChainView";
import { chainExists } from "@/lib/server/db/chains";

type Props = { params: Promise<{ chainId: string }> };

// Chain ids are [A-Za-z0-9._:-]: decoding cannot mangle one.
const chainIdOf = async (params: Props["params"]) => decodeURIComponent((await params).chainId);

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: `Chain ${await chainIdOf(params)}` };
}

/** An unknown id answers 404 (the status, not only a message), after one primary-key probe. */
export default async function ChainPage({ params }: Props) {
  const chainId = await chainIdOf(params);
  if (!(await chainExists(chainId))) notFound();
  return <ChainView chainId={chainId} />;
}
