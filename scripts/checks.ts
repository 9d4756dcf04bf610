// Destination checks kept as code (docs/ARCHITECTURE.md, "Destination checks"), like the routing CLI:
//   npm run --silent checks -- check FILE                     validate locally; every problem with its line and path
//   npm run --silent checks -- test FILE [--server s] [--tool t] [--label k=v]... [--operation-key K]
//                                                            which checks match such a chain, and what each would read
//   npm run --silent checks -- diff FILE                      unified diff of the server's config and FILE
//   npm run --silent checks -- apply FILE [--comment TEXT]    apply FILE over the version it was diffed against
// Secrets are never in FILE: headers and connections name RECEIPT_CHECK_* variables of the server's environment.
// RECEIPT_URL and RECEIPT_KEY (or --url, --key; applying needs the admin scope). Exit codes: 0 done; 1 problems
// (invalid file, `diff` found changes, `apply` refused or raced); 2 could not run.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { createTwoFilesPatch } from "diff";
import { stringify } from "yaml";
import { type TChecksConfig, ZChecksConfig } from "../lib/checks/config";
import { checkMatches } from "../lib/checks/decide";
import { renderTemplate } from "../lib/checks/template";
import { type DocumentError, locateErrors, parseRoutingDocument } from "../lib/routing/document";
import { jsonPath } from "../lib/routing/validate";

const USAGE = `usage: npm run --silent checks -- <command> FILE [options]
  check FILE                        validate FILE locally (no server needed)
  test FILE [--server s] [--tool t] [--label k=v]... [--operation-key K]
                                    the checks a chain like this matches, and the URL or query each would read
  diff FILE                         unified diff of the server's current config and FILE (exit 1: changes)
  apply FILE [--comment TEXT]       apply FILE; prints the new version
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
        server: { type: "string" },
        tool: { type: "string" },
        label: { type: "string", multiple: true },
        "operation-key": { type: "string" },
        comment: { type: "string" },
        url: { type: "string" },
        key: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    throw usage((error as Error).message);
  }
})();

const problemLine = (file: string, error: DocumentError) =>
  `${file}:${error.line ?? 1}:${error.column ?? 1}: ${error.path}: ${error.message}`;

/** FILE parsed and validated, or every problem printed with its line (exit `invalidExit`). */
function readChecks(
  file: string,
  invalidExit = 1,
): { config: TChecksConfig; locate: (path: string) => { line: number; column: number } | undefined } {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new Exit(2, `cannot read ${file}: ${(error as Error).message}`);
  }
  const parsed = parseRoutingDocument(text);
  if (!parsed.ok) {
    for (const error of parsed.errors) console.error(problemLine(file, error));
    throw new Exit(invalidExit, `${file} is not valid YAML or JSON`);
  }
  const checked = ZChecksConfig.safeParse(parsed.value);
  if (!checked.success) {
    const errors = checked.error.issues.map((issue) => ({
      path: jsonPath(issue.path),
      code: issue.code,
      message: issue.message,
    }));
    for (const error of locateErrors(errors, parsed.locate)) console.error(problemLine(file, error));
    throw new Exit(invalidExit, `${file}: ${errors.length} problem${errors.length === 1 ? "" : "s"}`);
  }
  return { config: checked.data, locate: parsed.locate };
}

function server() {
  const url = flags.url ?? process.env.RECEIPT_URL;
  const key = flags.key ?? process.env.RECEIPT_KEY;
  if (!url) throw new Exit(2, "RECEIPT_URL (or --url) is not set");
  if (!key) throw new Exit(2, "RECEIPT_KEY (or --key) is not set");
  return { url: url.replace(/\/$/, ""), key };
}

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const { url, key } = server();
  let response: Response;
  try {
    response = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (error) {
    throw new Exit(2, `cannot reach ${url}: ${(error as Error).message}`);
  }
  const json = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  return { status: response.status, json };
}

/** The same config as one canonical YAML text, for diffs. */
const canonical = (config: unknown) => stringify(ZChecksConfig.parse(config), { sortMapEntries: false });

async function current(): Promise<{ version: string; text: string }> {
  const answer = await call("GET", "/api/v1/checks/config");
  if (answer.status !== 200)
    throw new Exit(2, `HTTP ${answer.status}: cannot read the server's checks config`);
  return { version: String(answer.json.version), text: canonical(answer.json.config) };
}

function check(file: string) {
  const { config } = readChecks(file);
  console.log(`${file}: valid, ${config.checks.length} check${config.checks.length === 1 ? "" : "s"}`);
}

function test(file: string) {
  const { config } = readChecks(file);
  const labels: Record<string, string> = {};
  for (const pair of flags.label ?? []) {
    const at = pair.indexOf("=");
    if (at <= 0) throw usage(`--label ${pair}: expected name=value`);
    labels[pair.slice(0, at)] = pair.slice(at + 1);
  }
  const facts = { server: flags.server ?? null, tool: flags.tool ?? null, labels };
  const values = { operationKey: flags["operation-key"] ?? null, receipt: null, labels };
  const matching = config.checks.filter((c) => checkMatches(c, facts));
  if (matching.length === 0) {
    console.log("no check matches");
    return;
  }
  for (const c of matching) {
    if (c.http) {
      const rendered = renderTemplate(c.http.url, values);
      console.log(
        `${c.name}: ${c.http.method} ${"url" in rendered ? rendered.url : `(needs ${rendered.missing})`}`,
      );
    } else if (c.sql) {
      console.log(`${c.name}: ${c.sql.connection} ${c.sql.query.replace(/\s+/g, " ").trim()}`);
    }
  }
}

async function diff(file: string) {
  const proposed = canonical(readChecks(file, 2).config);
  const now = await current();
  if (now.text === proposed) {
    console.error(`no change: ${file} is version ${now.version}`);
    return;
  }
  process.stdout.write(createTwoFilesPatch(`server (version ${now.version})`, file, now.text, proposed));
  throw new Exit(1, "");
}

async function apply(file: string) {
  const { config, locate } = readChecks(file);
  const now = await current();
  if (now.text === canonical(config)) {
    console.log(`no change: version ${now.version} is current`);
    return;
  }
  const query = flags.comment ? `?comment=${encodeURIComponent(flags.comment)}` : "";
  const answer = await call("PUT", `/api/v1/checks/config${query}`, config, {
    "if-match": `"${now.version}"`,
  });
  if (answer.status !== 200) {
    const error = (answer.json.error ?? {}) as { code?: string; message?: string; issues?: DocumentError[] };
    for (const issue of locateErrors(error.issues ?? [], locate)) console.error(problemLine(file, issue));
    throw new Exit(
      [400, 409, 422].includes(answer.status) ? 1 : 2,
      `HTTP ${answer.status} ${error.code ?? ""}: ${error.message ?? "refused"}`,
    );
  }
  console.log(`applied: version ${String(answer.json.version)} (was ${now.version})`);
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
      return test(file);
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
