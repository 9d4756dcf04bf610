import { createHash } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { basename } from "node:path";
import type { EffectHook, OutcomeVerifier } from "./hooks";

/**
 * Ready-made verifiers. They read the destination themselves (the file, the URL) rather than
 * trusting what the tool said, and their receipts name the evidence, never the content.
 */

/** Outcome: the file at `path` exists and its sha256 is `expectedSha256` (hex, with or without "sha256:"). */
export function fileHashVerifier(path: string, expectedSha256: string): OutcomeVerifier {
  const expected = expectedSha256.replace(/^sha256:/, "").toLowerCase();
  return {
    kind: "file_hash",
    async verify() {
      let bytes: Buffer;
      try {
        bytes = await readFile(path);
      } catch (error) {
        // A missing file is a definite "the deliverable is not there"; anything else could not tell.
        if ((error as NodeJS.ErrnoException).code === "ENOENT")
          return { verdict: "fail", receipt: "file missing" };
        return { verdict: "unavailable" };
      }
      const actual = createHash("sha256").update(bytes).digest("hex");
      return { verdict: actual === expected ? "pass" : "fail", receipt: `sha256:${actual}` };
    },
  };
}

/** Effect: does the file exist at the destination? The receipt is the file's base name and size. */
export function fileEffect(path: string): EffectHook {
  return async () => {
    try {
      const info = await stat(path);
      return { status: "committed", receipt: `${basename(path)}@${info.size}b`.slice(0, 256) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { status: "absent" };
      return { status: "unknown" };
    }
  };
}

export type HttpStatusOptions = {
  /** Expected status, a list of them, or a predicate; default: any 2xx. */
  expect?: number | number[] | ((status: number) => boolean);
  method?: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
  fetch?: typeof fetch;
};

/** Outcome: `url` answers with the expected HTTP status. Unreachable = "unavailable", not "fail". */
export function httpStatusVerifier(url: string | URL, options: HttpStatusOptions = {}): OutcomeVerifier {
  const matches = (status: number): boolean => {
    const { expect } = options;
    if (expect === undefined) return status >= 200 && status < 300;
    if (typeof expect === "function") return expect(status);
    return Array.isArray(expect) ? expect.includes(status) : status === expect;
  };
  return {
    kind: "http_status",
    async verify() {
      try {
        const response = await (options.fetch ?? fetch)(url, {
          method: options.method ?? "GET",
          headers: options.headers,
          signal: AbortSignal.timeout(options.timeoutMs ?? 5000),
        });
        await response.body?.cancel();
        return { verdict: matches(response.status) ? "pass" : "fail", receipt: `HTTP ${response.status}` };
      } catch {
        return { verdict: "unavailable" };
      }
    },
  };
}
