import Link from "next/link";
import type { DeliveryNotice } from "@/lib/routing/undelivered";
import styles from "./DeliveryBanner.module.css";

const ADD_TARGET = "/routing#channels";

/**
 * Shown on every dashboard page while alerts can reach a channel without a target: those alerts are stored and
 * listed, but nobody is told. Hidden once every channel the route tree names has a target.
 */
export function DeliveryBanner({ notice, canAddTarget }: { notice: DeliveryNotice; canAddTarget: boolean }) {
  if (notice.kind === "delivered") return null;
  return (
    <div className={styles.banner} role="status" data-testid="delivery-banner" data-kind={notice.kind}>
      <p className={styles.inner}>
        {notice.kind === "nothing_delivered" ? (
          <>
            <strong>Alerts are recorded but not delivered:</strong> no channel alerts are routed to has a
            target yet, so nobody is notified.{" "}
          </>
        ) : (
          <>
            <strong>Some alerts are recorded but not delivered:</strong>{" "}
            {notice.channels.length === 1 ? "channel" : "channels"}{" "}
            {notice.channels.map((name, i) => (
              <span key={name}>
                {i > 0 ? ", " : ""}
                <code>{name}</code>
              </span>
            ))}{" "}
            {notice.channels.length === 1 ? "has" : "have"} no target.{" "}
          </>
        )}
        {canAddTarget ? <Link href={ADD_TARGET}>Add a target</Link> : "An admin can add one."}
      </p>
    </div>
  );
}
