import type { NewDelivery } from "../db/wake-notify";
import { DeliveryDispatcher } from "./delivery-dispatcher";

// The process's delivery engine, made on first use (its settings are read then).
let dispatcher: DeliveryDispatcher | undefined;
const engine = () => {
  dispatcher ??= new DeliveryDispatcher();
  return dispatcher;
};

/**
 * Sends due deliveries: claims what free capacity allows (attempt + lease in one statement, a share per target),
 * starts those POSTs outside any transaction and returns without waiting for them — each send that finishes frees
 * its slot and claims again. Called every tick and whenever deliveries are inserted; safe to call while sends are in
 * flight. State lives in the database, so a restart between the commit that created a delivery and its send still
 * sends it. A delivery that cannot be claimed or attempted is set aside as a dead letter, and the others are sent.
 * Returns how many deliveries were claimed.
 */
export function sendDueDeliveries(now: Date = new Date()): Promise<number> {
  return engine().pump(now);
}

/** Deliveries a commit of this instance inserted: claimed by id (DeliveryDispatcher.takeNew). */
export function takeNewDeliveries(deliveries: readonly NewDelivery[]): void {
  engine().takeNew(deliveries);
}

/** Resolves once nothing is claimed, sending or waiting to be recorded (tests, benchmarks, a graceful stop). */
export async function deliveriesSettled(pollMs = 5): Promise<void> {
  while (!engine().idle) await new Promise((resolve) => setTimeout(resolve, pollMs));
}
