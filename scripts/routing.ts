// The routing config kept as code, like amtool (docs/ROUTING.md, "Routing as code"):
//   npm run --silent routing -- check FILE                       validate locally; every problem with its line and path
//   npm run --silent routing -- test FILE --state S [--reason R] [--label k=v]... [--server s] [--tool t]
//                               [--client c] [--transport t] [--expect r1,r2] [--explain]
//   npm run --silent routing -- diff FILE                        unified diff of the server's config and FILE
//   npm run --silent routing -- apply FILE [--comment TEXT]      apply FILE over the version it was diffed against
// The server and key come from RECEIPT_URL and RECEIPT_KEY (or --url and --key); applying needs a key with the
// `admin` scope. Exit codes: 0 done (valid, no change, applied); 1 problems (invalid file, `diff` found changes,
// `test --expect` mismatch, `apply` refused or raced); 2 could not run (usage, unreadable file, missing environment
// variable, server unreachable, 401/403 or any other server error).
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { createTwoFilesPatch } from "diff";
import { loadRoutingConfig } from "../lib/routing/compile";
import {
  type DocumentError,
  locateErrors,
  parseRoutingDocument,
  resolveSecretReferences,
  secretEnvPrefixes,
} from "../lib/routing/document";
import { withPlaceholderSecrets } from "../lib/routing/document";
import { explainRouting } from "../lib/routing/route-test";
import { layerOfReason } from "../lib/routing/alerts";
import {
  type ClassifiedChain,
  LAYERS,
  type Layer,
  STATES,
  type State,
  TRANSPORTS,
  type Transport,
} from "../lib/routing/types";

const USAGE = `usage: npm run --silent routing -- <command> FILE [options]
  check FILE                          validate FILE locally (no server needed)
  test FILE --state S [--reason R] [--label k=v]... [--server s] [--tool t] [--client c] [--transport t]
            [--layer L] [--expect r1,r2] [--explain]
                                      the receivers an alert would reach, in order (as amtool config routes test)
  diff FILE                           unified diff of the server's current config and FILE (exit 1: changes)
  apply FILE [--comment TEXT]         apply FILE; prints the new version
options: --url URL (default $RECEIPT_URL), --key KEY (default $RECEIPT_KEY: a key with the admin scope)`;

class Exit extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}
const usage = (message: string) => new Exit(2, `${message}\n${USAGE}`);

const { values: flags, positionals } = (() => {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        state: { type: "string" },
        reason: { type: "string" },
        layer: { type: "string" },
        label: { type: "string", multiple: true },
        server: { type: "string" },
        tool: { type: "string" },
        client: { type: "string" },
        transport: { type: "string" },
        expect: { type: "string" },
        explain: { type: "boolean" },
        comment: { type: "string" },
        url: { type: "string" },
        key: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    process.exit(2);
  }
})();

/** A problem as a compiler prints it: FILE:line:column: path code: message. */
const problemLine = (file: string, error: DocumentError) =>
  `${file}${error.line ? `:${error.line}:${error.column}` : ""}: ${error.path} ${error.code}: ${error.message.replace(/^line \d+, column \d+: /, "")}`;

function reportProblems(file: string, errors: readonly DocumentError[], exitCode = 1): never {
  for (const error of errors) console.error(problemLine(file, error));
  throw new Exit(exitCode, `${file}: ${errors.length} problem${errors.length === 1 ? "" : "s"}`);
}

/** FILE read and parsed; syntax errors end the command with every problem located. */
function readDocument(file: string, invalidExit = 1) {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new Exit(2, `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  const parsed = parseRoutingDocument(text);
  if (!parsed.ok) reportProblems(file, parsed.errors, invalidExit);
  return parsed;
}

/** Validates FILE without the server: masked secrets and env references stand in for valid ones. */
function loadLocally(file: string) {
  const parsed = readDocument(file);
  const loaded = loadRoutingConfig(withPlaceholderSecrets(parsed.value));
  if (!loaded.ok) reportProblems(file, locateErrors(loaded.errors, parsed.locate));
  return loaded;
}

function check(file: string) {
  const loaded = loadLocally(file);
  const routes = (function count(route: { routes?: unknown[] }): number {
    return (route.routes ?? []).reduce<number>(
      (n, child) => n + 1 + count(child as { routes?: unknown[] }),
      0,
    );
  })(loaded.config.route);
  console.log(`${file}: valid (${loaded.config.channels.length} channels, ${routes} routes)`);
}

function oneOf<T extends string>(
  name: string,
  value: string | undefined,
  allowed: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value))
    throw usage(`--${name} must be one of: ${allowed.join(", ")}`);
  return value as T;
}

function routeTest(file: string) {
  const state = oneOf<State>("state", flags.state, STATES);
  if (!state) throw usage("test needs --state S");
  const labels: Record<string, string> = {};
  for (const pair of flags.label ?? []) {
    const at = pair.indexOf("=");
    if (at <= 0) throw usage(`--label ${pair}: expected key=value`);
    labels[pair.slice(0, at).replace(/^label\./, "")] = pair.slice(at + 1);
  }
  const reason = flags.reason ?? `${state}.cli`;
  const chain: ClassifiedChain = {
    chainId: "routing-cli-test",
    sessionId: "routing-cli-test",
    state,
    layer: oneOf<Layer>("layer", flags.layer, LAYERS) ?? layerOfReason(reason, "request"),
    reasons: [reason],
    labels,
    ...(flags.server ? { server: flags.server } : {}),
    ...(flags.tool ? { tool: flags.tool } : {}),
    ...(flags.client ? { client: flags.client } : {}),
    ...(flags.transport ? { transport: oneOf<Transport>("transport", flags.transport, TRANSPORTS) } : {}),
  };
  const result = explainRouting(loadLocally(file).compiled, chain, Date.now());
  // As amtool: every matched route's receiver in order, silences and inhibition aside (--explain tells about them).
  const receivers = result.alerts.flatMap((alert) => alert.routes.map((route) => route.receiver));
  console.log(receivers.join(","));
  if (flags.explain) for (const line of result.explanation) console.log(`  ${line}`);
  if (flags.expect !== undefined && flags.expect !== receivers.join(","))
    throw new Exit(1, `expected ${flags.expect || "(none)"}, got ${receivers.join(",") || "(none)"}`);
}

// --- talking to the server ---

function server() {
  const url = flags.url ?? process.env.RECEIPT_URL;
  const key = flags.key ?? process.env.RECEIPT_KEY;
  if (!url) throw usage("set RECEIPT_URL (or --url) to the Receipt server");
  if (!key) throw usage("set RECEIPT_KEY (or --key) to a key with the admin scope");
  return { base: url.replace(/\/+$/, ""), key };
}

type Answer = { status: number; json: Record<string, unknown> };

async function call(method: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  const { base, key } = server();
  let response: Response;
  try {
    response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? String(error);
    throw new Exit(2, `cannot reach ${base}: ${cause}`);
  }
  const text = await response.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    if (!response.ok) throw new Exit(2, `${method} ${path}: HTTP ${response.status}`);
  }
  return { status: response.status, json } satisfies Answer;
}

type ServerIssue = { path: string; code: string; message: string };

/** A refusal: its problems located in FILE; 400/409/412/422 are the file's (exit 1), anything else exit 2. */
function refused(
  file: string,
  answer: Answer,
  locate: (path: string) => { line: number; column: number } | undefined,
  invalidExit: number,
): never {
  const error = (answer.json.error ?? {}) as { code?: string; message?: string; issues?: ServerIssue[] };
  for (const issue of locateErrors(error.issues ?? [], locate)) console.error(problemLine(file, issue));
  const ours = [400, 409, 412, 422].includes(answer.status);
  throw new Exit(
    ours ? invalidExit : 2,
    `HTTP ${answer.status} ${error.code ?? ""}: ${error.message ?? "refused"}`,
  );
}

/** FILE with its env references resolved (a missing variable is named, exit 2), checked by the server. */
async function checkOnServer(file: string, invalidExit: number) {
  const parsed = readDocument(file, invalidExit);
  const prefixes = secretEnvPrefixes(process.env.RECEIPT_ROUTING_ENV_PREFIXES);
  const resolved = resolveSecretReferences(parsed.value, process.env, prefixes);
  if (!resolved.ok) reportProblems(file, locateErrors(resolved.errors, parsed.locate), 2);
  const answer = await call("POST", "/api/v1/routing/config/check", resolved.value);
  if (answer.status !== 200) refused(file, answer, parsed.locate, invalidExit);
  const { version, changed, current, proposed } = answer.json as {
    version: string;
    changed: boolean;
    current: string;
    proposed: string;
  };
  return { parsed, value: resolved.value, version, changed, current, proposed };
}

async function diff(file: string) {
  const checked = await checkOnServer(file, 2);
  if (!checked.changed) {
    console.error(`no change: ${file} is version ${checked.version}`);
    return;
  }
  process.stdout.write(
    createTwoFilesPatch(`server (version ${checked.version})`, file, checked.current, checked.proposed),
  );
  throw new Exit(1, "");
}

async function apply(file: string) {
  const checked = await checkOnServer(file, 1);
  if (!checked.changed) {
    console.log(`no change: version ${checked.version} is current`);
    return;
  }
  const query = flags.comment ? `?comment=${encodeURIComponent(flags.comment)}` : "";
  // If-Match: the version this change was checked against; a change saved meanwhile is a 409, not overwritten.
  const answer = await call("PUT", `/api/v1/routing/config${query}`, checked.value, {
    "if-match": `"${checked.version}"`,
  });
  if (answer.status !== 200) refused(file, answer, checked.parsed.locate, 1);
  console.log(`applied: version ${String(answer.json.version)} (was ${checked.version})`);
}

async function main() {
  const [command, file, ...extra] = positionals;
  if (flags.help) {
    console.log(USAGE);
    return;
  }
  if (!command) throw usage("no command");
  if (!file) throw usage(`${command} needs FILE`);
  if (extra.length > 0) throw usage(`unexpected arguments: ${extra.join(" ")}`);
  switch (command) {
    case "check":
      return check(file);
    case "test":
      return routeTest(file);
    case "diff":
      return diff(file);
    case "apply":
      return apply(file);
    default:
      throw usage(`unknown command "${command}"`);
  }
}

try {
  await main();
} catch (error) {
  if (!(error instanceof Exit)) throw error;
  if (error.message) console.error(error.message);
  process.exitCode = error.code;
}
