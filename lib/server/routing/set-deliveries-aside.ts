import { markDeliveriesSetAside } from "../db/routing-deliveries";
import { type SetAside, SET_ASIDE_JOBS } from "../db/set-aside";
import { reportSetAside } from "../worker/isolate";

/** Deliveries the engine could not claim, attempt or record become dead letters; each is logged and counted once. */
export async function setDeliveriesAside(items: SetAside[]): Promise<void> {
  reportSetAside(SET_ASIDE_JOBS.delivery, items, await markDeliveriesSetAside(items));
}
