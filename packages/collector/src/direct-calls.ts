import type { CallReport, CallToolOptions } from "./call";

/** The SDK's own request timeout (DEFAULT_REQUEST_TIMEOUT_MSEC, both SDKs): a direct call's deadline. */
export const SDK_DEFAULT_TIMEOUT_MS = 60_000;

type CallOptionsLike = { timeout?: number; signal?: AbortSignal } | undefined;
type Params = { name: string; arguments?: Record<string, unknown> };

/**
 * A client handed out by `connect`/`connectV2` records the calls made on it directly (`client.callTool(…)`), as an
 * agent or framework that was given the client makes them: each is one chain, like `receipt.callTool`'s, with what
 * the SDK call says — the tool, its arguments (never recorded), the SDK timeout as the deadline (60 s by default),
 * the caller's signal — and a side effect of "unknown" (counted as a write), no operation key and no verifier.
 * The answer and the errors are the SDK's own. The session's SDK methods are kept aside first, so the collector's
 * own calls do not come back here.
 */
export function recordDirectCalls(
  client: object,
  sdk: "v1" | "v2",
  call: (options: CallToolOptions) => Promise<CallReport>,
): void {
  const run = async (params: Params, options: CallOptionsLike) => {
    const report = await call({
      name: params.name,
      ...(params.arguments !== undefined ? { arguments: params.arguments } : {}),
      deadlineMs: options?.timeout ?? SDK_DEFAULT_TIMEOUT_MS,
      ...(options?.signal ? { signal: options.signal } : {}),
    });
    if (report.error !== undefined) throw report.error;
    return report.result;
  };
  const target = client as { callTool: unknown };
  target.callTool =
    sdk === "v1"
      ? (params: Params, _resultSchema?: unknown, options?: CallOptionsLike) => run(params, options)
      : (params: Params, options?: CallOptionsLike) => run(params, options);
}
