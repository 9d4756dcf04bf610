import { z } from "zod";
import { ID_PATTERN } from "@/lib/contract/record";
import { isAddressableId } from "@/lib/contract/limits";
import { isStorableString } from "@/lib/contract/storable";
import { MAX_LEASE_MS } from "./decision";

/** An operation key is a contract Id, like `call.operationKey`. */
export const ZOperationKey = z
  .string()
  .regex(ID_PATTERN, "expected an id: 1-128 characters of A-Z a-z 0-9 . _ : -")
  .refine(isAddressableId, "an id cannot be . or ..");

const storable = (max: number) =>
  z.string().min(1).max(max).refine(isStorableString, "cannot hold NUL or an unpaired surrogate");
const ZName = storable(128);

/** The body of `POST /api/v1/operations/{key}/attempts`. */
export const ZGuardRequest = z.strictObject({
  tool: ZName,
  server: ZName.optional(),
  /** The agent or session asking: shown beside the lease and every decision. */
  holder: storable(256),
  /** How long the caller may take to send the write and report it: at most the call's deadline, capped here. */
  leaseMs: z.number().int().positive().max(MAX_LEASE_MS),
});
export type GuardRequest = z.infer<typeof ZGuardRequest>;
