// Destination checks as data (issue 40 §3): what Receipt reads at a destination to settle an effect it could not see.
// A check matches chains by server, tool and labels, and either GETs (or HEADs) a URL or runs one read-only query on a
// named PostgreSQL connection. Shape only; the templates' placeholders are checked here too, so a typo fails on save.
import "../zod-without-eval";
import { z } from "zod";
import { templateProblems } from "./template";

export const CHECK_NAME = /^[a-z0-9][a-z0-9_.-]{0,62}$/;

/** An environment variable an admin named for a check's secret (a header, a connection string). */
const ZEnvName = z
  .string()
  .regex(/^RECEIPT_CHECK_[A-Z0-9_]{1,64}$/, "an environment variable named RECEIPT_CHECK_…");

const ZStatusList = z.array(z.number().int().min(100).max(599)).min(1).max(32);

const ZUrlTemplate = z
  .string()
  .min(1)
  .max(2048)
  .superRefine((value, context) => {
    for (const message of templateProblems(value)) context.addIssue({ code: "custom", message });
  });

/** An assertion on the destination's answer that decides the outcome (pass/fail) as well as the effect. */
const ZJsonAssertion = z.strictObject({
  /** RFC 6901 JSON pointer into the response body ("" is the whole body). */
  pointer: z
    .string()
    .max(512)
    .regex(/^(\/.*)?$/, "a JSON pointer such as /status"),
  equals: z.union([z.string().max(512), z.number(), z.boolean(), z.null()]),
});

export const ZHttpCheck = z.strictObject({
  method: z.enum(["GET", "HEAD"]).default("GET"),
  /** https://… with {operationKey}, {effect.receipt}, {labels.<name>}: each value URL-encoded. */
  url: ZUrlTemplate,
  /** Header values from the environment only: a token never sits in the config. */
  headersFromEnv: z.record(z.string().regex(/^[A-Za-z0-9-]{1,64}$/), ZEnvName).default({}),
  /** Which answers mean the write is there, and which that it is not; anything else is unknown. */
  committed: ZStatusList.default([200]),
  absent: ZStatusList.default([404, 410]),
  outcome: ZJsonAssertion.optional(),
});

const ZColumnAssertion = z.strictObject({
  column: z.string().min(1).max(63),
  equals: z.union([z.string().max(512), z.number(), z.boolean(), z.null()]),
});

export const ZSqlCheck = z.strictObject({
  /** The environment variable holding the connection string (read-only credentials, please). */
  connection: ZEnvName,
  /** One SELECT; $1 is the operation key. A row: committed; none: absent. */
  query: z
    .string()
    .min(1)
    .max(4096)
    .refine((value) => /^\s*(select|with)\b/i.test(value), "a SELECT (or WITH … SELECT) query")
    .refine((value) => !/;\s*\S/.test(value), "one statement"),
  outcome: ZColumnAssertion.optional(),
});

export const ZCheck = z
  .strictObject({
    name: z.string().regex(CHECK_NAME, "lowercase letters, digits, '_', '.', '-'; at most 63 characters"),
    match: z.strictObject({
      server: z.string().min(1).max(128).optional(),
      tool: z.string().min(1).max(128).optional(),
      labels: z.record(z.string().min(1).max(64), z.string().max(256)).default({}),
    }),
    http: ZHttpCheck.optional(),
    sql: ZSqlCheck.optional(),
    timeoutMs: z.number().int().min(100).max(30_000).default(5_000),
    /** Attempts before the result is unknown (a timeout, a 5xx, a refused connection), with backoff between. */
    attempts: z.number().int().min(1).max(5).default(3),
  })
  .superRefine((check, context) => {
    if ((check.http === undefined) === (check.sql === undefined))
      context.addIssue({ code: "custom", path: [], message: "a check has exactly one of http or sql" });
  });

export const ZChecksConfig = z.strictObject({
  version: z.literal(1),
  checks: z
    .array(ZCheck)
    .max(200)
    .superRefine((checks, context) => {
      const seen = new Set<string>();
      checks.forEach((check, index) => {
        if (seen.has(check.name))
          context.addIssue({
            code: "custom",
            path: [index, "name"],
            message: `"${check.name}" is used twice`,
          });
        seen.add(check.name);
      });
    }),
});

export type TCheck = z.infer<typeof ZCheck>;
export type TChecksConfig = z.infer<typeof ZChecksConfig>;

export const EMPTY_CHECKS: TChecksConfig = { version: 1, checks: [] };
