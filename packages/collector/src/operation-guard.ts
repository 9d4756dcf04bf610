import type { CallToolOptions } from "./call";

/**
 * The retry guard on Receipt (`POST /api/v1/operations/{key}/attempts`, docs/ARCHITECTURE.md "Operations"): before a
 * write with an `operationKey` is sent to the MCP server, the collector asks Receipt whether that operation may run
 * now. Only `proceed` lets the call through; the other answers become typed errors and the server is never called.
 */
export type OperationGuardOptions = {
  /** Receipt's base URL and an ingestion key (scope `ingest`), usually the same as the ReceiptSink's. */
  baseUrl: string | URL;
  ingestionKey: string;
  /** Who is asking (the agent or session), shown beside the lease and every decision. */
  holder: string;
  /**
   * What to do when Receipt cannot be reached (network error, timeout, 5xx). No default: the choice is the
   * trade-off. `"proceed"` keeps the agent working when Receipt is down, but a retry of a write that already
   * committed can repeat it; the call's records carry the label `receipt.guard: unreachable_proceeded`, so the
   * operation page shows the attempt ran unguarded. `"refuse"` never risks a duplicate write, but every guarded
   * write stops (`OperationGuardUnreachableError`) while Receipt is unreachable.
   */
  whenUnreachable: "proceed" | "refuse";
  /** How long to wait for the guard's answer (default 5 s). */
  timeoutMs?: number;
  fetch?: typeof fetch;
};

/** The label a write sent without the guard's answer carries on its records. */
export const GUARD_LABEL = "receipt.guard";
const MAX_LEASE_MS = 3_600_000;

export type GuardAttempt = { chainId: string; state: string; reasons: string[]; effect: string; at: string };
type GuardBody = {
  decision?: string;
  status?: string;
  attempts?: GuardAttempt[];
  links?: { page?: string };
  committed?: {
    /** Null when no chain committed it: an expired lease whose write the destination showed (settled). */
    chainId: string | null;
    receipts: { effect: string | null; outcome: string | null; operator: string | null };
  };
  error?: { code?: string; message?: string };
};

/** `wait`: another attempt holds a live lease or is still running. Ask again after `retryAfterSeconds`. */
export class OperationInProgressError extends Error {
  override readonly name = "OperationInProgressError";
  constructor(
    readonly operationKey: string,
    readonly retryAfterSeconds: number,
    readonly attempts: readonly GuardAttempt[],
  ) {
    super(`operation ${operationKey} is in progress elsewhere: retry after ${retryAfterSeconds} s`);
  }
}

/** `reconcile_first`: an earlier attempt may have written. Check the destination (the operation page) first. */
export class OperationInDoubtError extends Error {
  override readonly name = "OperationInDoubtError";
  constructor(
    readonly operationKey: string,
    readonly attempts: readonly GuardAttempt[],
    /** The operation's page on Receipt, relative to its base URL. */
    readonly page: string | undefined,
  ) {
    super(
      `operation ${operationKey} is in doubt: reconcile ${attempts.map((a) => a.chainId).join(", ") || "its expired lease"} first`,
    );
  }
}

/**
 * `already_committed`: the write already happened. Report the earlier success (`chainId`, `receipts`) instead of
 * repeating it; the server was not called.
 */
export class OperationAlreadyCommittedError extends Error {
  override readonly name = "OperationAlreadyCommittedError";
  constructor(
    readonly operationKey: string,
    readonly chainId: string | undefined,
    readonly receipts: { effect: string | null; outcome: string | null; operator: string | null } | undefined,
  ) {
    super(`operation ${operationKey} already committed${chainId ? ` (chain ${chainId})` : ""}`);
  }
}

/** Receipt could not be reached and `whenUnreachable` is `"refuse"`. */
export class OperationGuardUnreachableError extends Error {
  override readonly name = "OperationGuardUnreachableError";
  constructor(
    readonly operationKey: string,
    override readonly cause: unknown,
  ) {
    super(`the retry guard for ${operationKey} could not be reached`, { cause });
  }
}

/** Receipt refused the question itself (a bad key, tool or lease, a key without `ingest`, a key bound to another tool). */
export class OperationGuardRejectedError extends Error {
  override readonly name = "OperationGuardRejectedError";
  constructor(
    readonly operationKey: string,
    readonly status: number,
    readonly code: string | undefined,
  ) {
    super(`the retry guard refused ${operationKey}: ${status} ${code ?? ""}`.trim());
  }
}

/** Only writes that carry an operation key are guarded (`sideEffect` `unknown` counts as a write). */
export const isGuarded = (call: CallToolOptions): boolean =>
  call.operationKey !== undefined && (call.sideEffect ?? "unknown") !== "none";

/**
 * Asks the guard for `call` and returns the call to run: unchanged on `proceed`, labelled when Receipt was
 * unreachable and the options say to proceed. Throws the typed errors above for every other answer.
 */
export async function guardCall(
  options: OperationGuardOptions,
  call: CallToolOptions,
): Promise<CallToolOptions> {
  if (!isGuarded(call)) return call;
  const key = call.operationKey as string;
  const url = new URL(`api/v1/operations/${encodeURIComponent(key)}/attempts`, withSlash(options.baseUrl));
  let response: Response;
  let body: GuardBody;
  try {
    response = await (options.fetch ?? fetch)(url, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${options.ingestionKey}` },
      body: JSON.stringify({
        tool: call.name,
        holder: options.holder,
        leaseMs: Math.min(call.deadlineMs, MAX_LEASE_MS),
      }),
      signal: AbortSignal.timeout(options.timeoutMs ?? 5_000),
    });
    if (response.status >= 500) throw new Error(`HTTP ${response.status}`);
    body = (await response.json()) as GuardBody;
  } catch (error) {
    if (options.whenUnreachable === "refuse") throw new OperationGuardUnreachableError(key, error);
    return { ...call, labels: { ...call.labels, [GUARD_LABEL]: "unreachable_proceeded" } };
  }
  switch (body.decision) {
    case "proceed":
      return call;
    case "wait":
      throw new OperationInProgressError(
        key,
        Number(response.headers.get("retry-after") ?? 1),
        body.attempts ?? [],
      );
    case "reconcile_first":
      throw new OperationInDoubtError(key, body.attempts ?? [], body.links?.page);
    case "already_committed":
      throw new OperationAlreadyCommittedError(
        key,
        body.committed?.chainId ?? undefined,
        body.committed?.receipts,
      );
    default:
      throw new OperationGuardRejectedError(key, response.status, body.error?.code);
  }
}

const withSlash = (base: string | URL) => {
  const text = String(base);
  return text.endsWith("/") ? text : `${text}/`;
};
