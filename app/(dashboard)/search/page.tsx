import type { Metadata } from "next";
import { Suspense } from "react";
import { SearchView } from "@/components/search/SearchView";
import { LoadingState } from "@/components/ui/StatusViews";

type Props = { searchParams: Promise<{ q?: string | string[] }> };

export async function generateMetadata({ searchParams }: Props): Promise<Metadata> {
  const q = (await searchParams).q;
  const text = typeof q === "string" ? q.trim().slice(0, 80) : "";
  return { title: text ? `Search “${text}”` : "Search" };
}

export default function SearchPage() {
  return (
    <Suspense fallback={<LoadingState label="Searching" />}>
      <SearchView />
    </Suspense>
  );
}
