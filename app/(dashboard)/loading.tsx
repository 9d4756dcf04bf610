import { LoadingState } from "@/components/ui/StatusViews";

export default function Loading() {
  return <LoadingState label="Loading" rows={6} />;
}
