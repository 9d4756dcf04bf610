import Link from "next/link";
import { EmptyState } from "@/components/ui/StatusViews";

// Any URL no page answers. Outside the dashboard layout, so it shows no data and needs no session.
export default function NotFound() {
  return (
    <main id="main">
      <div className="panel">
        <EmptyState title="No such page">
          <p>
            <Link href="/">Back to the overview</Link>
          </p>
        </EmptyState>
      </div>
    </main>
  );
}
