import { z } from "zod";
import { ACCOUNT_BACKOFF, ADDRESS_BACKOFF, CLIENT_BACKOFF } from "@/lib/auth/sign-in-backoff";
import { OutboundAllowError, parseOutboundAllow } from "@/lib/outbound/address-policy";

// Every variable the app reads, validated in one place: `npm start` parses them all before anything else runs, so a
// typo fails loudly with its name instead of deep inside a request or at the first alert. Defaults suit production;
// the tests shorten the ticks, backoffs and throttles so a whole scenario runs in seconds.
const ms = (fallback: number, min = 1, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce.number().int().min(min).max(max).default(fallback);
const count = (fallback: number, min: number, max: number) =>
  z.coerce.number().int().min(min).max(max).default(fallback);
const flag = (fallback: "0" | "1") => z.enum(["0", "1"]).default(fallback);

const ZServerEnv = z.object({
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgresql:// connection string")
    .optional()
    .or(z.literal("").transform(() => undefined)),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  /** Where the embedded PostgreSQL lives (its `pg` folder); tests use throwaway folders. */
  RECEIPT_DATA_DIR: z
    .string()
    .min(1)
    .optional()
    .or(z.literal("").transform(() => undefined)),
  RECEIPT_ADMIN_USER: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/)
    .default("admin"),
  RECEIPT_ADMIN_PASSWORD: z.string().min(8, "must be at least 8 characters").optional(),
  /** The dashboard's address as receivers should reach it (links in payloads). */
  RECEIPT_PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
});

const ZJobsEnv = z.object({
  /** "1": this instance runs no background job (another instance does). */
  RECEIPT_DISABLE_WORKERS: flag("0"),
  /** Read by next.config.ts as the server starts; declared here so a bad value stops the app with its name. */
  RECEIPT_PRELOAD_ROUTES: flag("1"),
  RECEIPT_DEADLINE_TICK_MS: ms(1000, 10),
  /** How often the rollup deltas appended by chain writes are folded into the rollups. */
  RECEIPT_ROLLUP_FOLD_MS: ms(1000, 10),
  // Wake-ups and safety ticks (lib/server/worker/background.ts). A commit wakes routing and delivery at once, in this
  // process and, through LISTEN/NOTIFY, in every other; a timer flushes each group when it is due. The ticks only
  // catch what a lost notification missed.
  /** Safety tick: how often the outbox is routed and due groups are flushed without a wake-up. */
  RECEIPT_ALERT_TICK_MS: ms(5000, 10),
  /** Safety tick: how often due deliveries (retries included) are sent without a wake-up. */
  RECEIPT_DELIVERY_TICK_MS: ms(5000, 10),
  /** How often chains whose effect is unknown are looked for, to run their destination checks. */
  RECEIPT_CHECKS_TICK_MS: ms(10_000, 10),
  /** How long a chain no check settled waits before its checks run again. */
  RECEIPT_CHECKS_RECHECK_MS: ms(5 * 60_000, 0),
  /** "0": no wake-ups, no LISTEN connection, no group timer: ticks only; ingestion keys read on every request. */
  RECEIPT_WAKE_UPS: flag("1"),
  /**
   * "1": an instance that runs the alert jobs routes, in the committing transaction, the alerts a route sends at once
   * (groupWait 0, to a channel with a target) and flushes their due groups there (lib/server/routing/route-at-commit.ts);
   * "0": every alert through the outbox.
   */
  RECEIPT_ROUTE_AT_COMMIT: flag("1"),
  /**
   * With routing at commit, how long the routing job gathers this instance's own commits before routing their outbox:
   * what a commit leaves there waits for a groupWait or a group's next tick anyway, and one run a window instead of one
   * a commit spared PostgreSQL a fifth of its CPU at ingestion batch 100 (docs/BENCHMARKS.md). Another instance's
   * NOTIFY still wakes it at once. 0: a run a commit.
   */
  RECEIPT_OUTBOX_GATHER_MS: ms(100, 0),
  /** Longest wait between reconnection attempts of the LISTEN connections (wake-ups, ingestion keys). */
  RECEIPT_WAKE_RECONNECT_MAX_MS: ms(30_000, 100),
});

const ZDeliveryEnv = z.object({
  /** Per-attempt HTTP timeout. */
  RECEIPT_DELIVERY_TIMEOUT_MS: ms(10_000, 100),
  RECEIPT_DELIVERY_MAX_ATTEMPTS: count(8, 1, 50),
  /** First retry delay; doubled per attempt up to the maximum. */
  RECEIPT_DELIVERY_BACKOFF_MS: ms(5_000),
  RECEIPT_DELIVERY_BACKOFF_MAX_MS: ms(15 * 60_000),
  /** Sends in flight to one target (channel + target index) at once (the delivery engine). */
  RECEIPT_DELIVERY_PER_TARGET: count(4, 1, 64),
  /** Deliveries one instance holds at once (sending or waiting for their target), all targets together. */
  RECEIPT_DELIVERY_IN_FLIGHT: count(128, 1, 1024),
  /** A claim's lease is the attempt's timeout plus this: after a crash, another instance re-sends once it ends. */
  RECEIPT_DELIVERY_LEASE_MARGIN_MS: ms(30_000, 0),
  /** Address ranges outbound sends may reach although private or local (lib/outbound/address-policy.ts). */
  RECEIPT_OUTBOUND_ALLOW: z
    .string()
    .default("")
    .superRefine((value, context) => {
      try {
        parseOutboundAllow(value);
      } catch (error) {
        if (!(error instanceof OutboundAllowError)) throw error;
        context.addIssue({ code: "custom", message: error.message });
      }
    }),
});

const ZSignInEnv = z.object({
  /** Failed sign-ins at one account, per client and over every client, before its back-off starts. */
  RECEIPT_SIGNIN_FREE_ATTEMPTS: count(CLIENT_BACKOFF.freeAttempts, 1, 1000),
  /** Failed sign-ins per client address (every account together) before the back-off starts. */
  RECEIPT_SIGNIN_ADDRESS_FREE_ATTEMPTS: count(ADDRESS_BACKOFF.freeAttempts, 1, 1000),
  /** The first lock; doubled per further failure up to the maximum (at most an hour: no lock is for good). */
  RECEIPT_SIGNIN_BACKOFF_MS: ms(CLIENT_BACKOFF.baseMs, 1, 60 * 60_000),
  RECEIPT_SIGNIN_BACKOFF_MAX_MS: ms(CLIENT_BACKOFF.maxMs, 1, 60 * 60_000),
  /** The longest lock of an account over every client without a known-device cookie (lib/auth/sign-in-counters.ts). */
  RECEIPT_SIGNIN_ACCOUNT_MAX_MS: ms(ACCOUNT_BACKOFF.maxMs, 1, 60 * 60_000),
  /** How many proxies in front of the app append to X-Forwarded-For; 0: the header is not believed. */
  RECEIPT_TRUST_PROXY: count(0, 0, 10),
});

const ZRetentionEnv = z.object({
  /** "0": this instance prunes nothing and makes no partition ahead (keep everything, or tests on fixed dates). */
  RECEIPT_RETENTION: flag("1"),
  /** Days a chain is kept after its newest record (unless firing or in open triage), with records and history. */
  RECEIPT_RETENTION_DAYS: count(30, 1, 3650),
  /** Days resolved alerts and finished deliveries are kept: longer than chains, for incident reviews. */
  RECEIPT_ALERT_RETENTION_DAYS: count(90, 1, 3650),
  /** Days an OTLP session's spans are kept after its newest span (its records are kept apart, as chains). */
  RECEIPT_OTLP_SPAN_RETENTION_DAYS: count(30, 1, 3650),
  /** Spans one OTLP session may hold: an export that would add past it is refused (422 session_span_limit). */
  RECEIPT_OTLP_MAX_SESSION_SPANS: count(20_000, 1, 1_000_000),
  /** How often the retention job looks for work (lib/server/retention). */
  RECEIPT_RETENTION_TICK_MS: ms(60_000, 10),
  /** Rows (chains, alerts, deliveries, records, groups, set-aside items, span sessions) one step deletes at most. */
  RECEIPT_RETENTION_BATCH: count(500, 1, 10_000),
  /** Pause between two pruning steps while work is left, so a backlog never crowds ingestion out. */
  RECEIPT_RETENTION_PAUSE_MS: ms(1000, 0, 60_000),
});

const optionalText = z
  .string()
  .trim()
  .min(1)
  .optional()
  .or(z.literal("").transform(() => undefined));

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

// OpenID Connect sign-in beside passwords (lib/server/auth/oidc-*.ts): on when the issuer, client id and secret are
// all set. The client secret goes to the provider's token endpoint, so plain http is only for a provider on this host.
const ZOidcEnv = z.object({
  RECEIPT_OIDC_ISSUER: z
    .url({ protocol: /^https?$/ })
    .refine((value) => {
      const url = new URL(value);
      return url.protocol === "https:" || LOOPBACK_HOSTS.has(url.hostname);
    }, "must be an https:// URL (http:// only for localhost)")
    .optional()
    .or(z.literal("").transform(() => undefined)),
  RECEIPT_OIDC_CLIENT_ID: optionalText,
  RECEIPT_OIDC_CLIENT_SECRET: optionalText,
  /** The provider's name on the sign-in button: "Sign in with <name>". */
  RECEIPT_OIDC_NAME: z.string().trim().min(1).max(64).default("single sign-on"),
  /** The claim (ID token or userinfo) whose value, when it names a role, is a new user's role; else viewer. */
  RECEIPT_OIDC_ROLE_CLAIM: z.string().trim().min(1).max(128).default("receipt_role"),
  /** Scopes asked for: the role claim must come with one of them. */
  RECEIPT_OIDC_SCOPES: z
    .string()
    .trim()
    .regex(/(^|\s)openid(\s|$)/, "must include openid")
    .default("openid profile email"),
  /** Longest wait for the provider (discovery, token exchange, userinfo) before the user is told it is down. */
  RECEIPT_OIDC_TIMEOUT_MS: ms(10_000, 100, 120_000),
});

const OIDC_TRIO = ["RECEIPT_OIDC_ISSUER", "RECEIPT_OIDC_CLIENT_ID", "RECEIPT_OIDC_CLIENT_SECRET"] as const;

const ZEnv = ZServerEnv.extend(ZJobsEnv.shape)
  .extend(ZDeliveryEnv.shape)
  .extend(ZSignInEnv.shape)
  .extend(ZRetentionEnv.shape)
  .extend(ZOidcEnv.shape)
  .superRefine((parsed, context) => {
    const missing = OIDC_TRIO.filter((name) => parsed[name] === undefined);
    if (missing.length === 0 || missing.length === OIDC_TRIO.length) return;
    for (const name of missing) {
      context.addIssue({
        code: "custom",
        path: [name],
        message: `OpenID Connect sign-in needs ${OIDC_TRIO.join(", ")} together: set all three or none`,
      });
    }
  });

export type Env = z.infer<typeof ZEnv>;

export class EnvError extends Error {}

/** Every problem at once, each with its variable's name. */
export function parseEnv(source: Record<string, string | undefined>): Env {
  const parsed = ZEnv.safeParse(source);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
  throw new EnvError(`Invalid environment variable(s): ${problems.join("; ")}`);
}

/** The environment as it is now: for DATABASE_URL, which a script sets once it has resolved the database. */
export function readEnv(): Env {
  return parseEnv(process.env);
}

let cached: Env | undefined;

/** The process's settings, read once on first use (the settings modules derive theirs from it). */
export function env(): Env {
  cached ??= readEnv();
  return cached;
}
