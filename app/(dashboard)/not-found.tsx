import Link from "next/link";
import { EmptyState } from "@/components/ui/StatusViews";

export default function NotFound() {
  return (
    <div className="panel">
      <EmptyState title="No such page">
        <p>
          <Link href="/">Back to the overview</Link>
        </p>
      </EmptyState>
    </div>
  );
}
