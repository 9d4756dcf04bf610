import { z } from "zod";

// Validated once at start, so a typo in a variable fails loudly with its name instead of deep inside a request.
const ZEnv = z.object({
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgresql:// connection string")
    .optional()
    .or(z.literal("").transform(() => undefined)),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  RECEIPT_DATA_DIR: z.string().min(1).optional(),
  RECEIPT_DEADLINE_TICK_MS: z.coerce.number().int().min(10).default(1000),
  RECEIPT_DISABLE_WORKERS: z.enum(["0", "1"]).default("0"),
  RECEIPT_ADMIN_USER: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/)
    .default("admin"),
  RECEIPT_ADMIN_PASSWORD: z.string().min(8, "must be at least 8 characters").optional(),
});

export type Env = z.infer<typeof ZEnv>;

export class EnvError extends Error {}

export function parseEnv(source: Record<string, string | undefined>): Env {
  const parsed = ZEnv.safeParse(source);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
  throw new EnvError(`Invalid environment variable(s): ${problems.join("; ")}`);
}

export function readEnv(): Env {
  return parseEnv(process.env);
}
