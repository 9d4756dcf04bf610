/**
 * Credential patterns for the redaction guard (contract §5, and issue 17's list beyond it).
 *
 * Every pattern is anchored on a literal prefix or a keyword, and no quantified group repeats
 * characters that its neighbour could also take, so a scan stays linear in the text's length.
 * Look-alikes that must pass (hex digests, UUIDs, commit shas, base64 digests, e-mail
 * addresses, `user@host` URLs) have no such prefix or keyword.
 */

/** Characters that render as nothing, used to split a credential so a plain regex misses it. */
const INVISIBLE_CHARS = "\\u00AD\\u180E\\u200B-\\u200F\\u2060-\\u2064\\uFEFF";
/** Optional invisible characters between two letters of a keyword or token. */
const I = `[${INVISIBLE_CHARS}]*`;
/** Optional whitespace or invisible characters (inside a JWT). */
const W = `[\\s${INVISIBLE_CHARS}]*`;

/** A case-insensitive spelling of an ASCII word, as a regex source (the combined regex has no `i` flag). */
function anyCase(word: string): string {
  return word.replace(/[a-z]/gi, (letter) => `[${letter.toUpperCase()}${letter.toLowerCase()}]`);
}

/** `api_key`, `api-key` and `apikey` alike. */
const credentialName = (...words: string[]) => words.map(anyCase).join("[_-]?");

/** Query parameters whose value is a credential; the name must be the whole parameter name. */
const CREDENTIAL_PARAMS = [
  credentialName("x", "api", "key"),
  credentialName("api", "key"),
  credentialName("access", "token"),
  credentialName("auth", "token"),
  credentialName("refresh", "token"),
  credentialName("id", "token"),
  credentialName("client", "secret"),
  credentialName("access", "key"),
  credentialName("secret", "key"),
  credentialName("private", "key"),
  credentialName("account", "key"),
  credentialName("shared", "access", "key"),
  anyCase("token"),
  anyCase("signature"),
  anyCase("sig"),
  anyCase("password"),
  anyCase("passwd"),
  anyCase("pwd"),
  anyCase("secret"),
  anyCase("key"),
].join("|");

/** Where a query parameter starts: the text's start, or after `?`, `&`, `;`, `#`, whitespace or a quote. */
const PARAM_START = "(?:^|[?&;#\\s\"'])";
/**
 * A parameter value that is not a placeholder: `***`, `<token>`, `{TOKEN}`, `$TOKEN`, `%2A%2A`
 * (decoded before it is matched again), `REDACTED` or `null` stay allowed.
 */
const PARAM_VALUE = `(?!(?:${anyCase("redacted")}|${anyCase("null")}|${anyCase("none")})(?:[&#;\\s"']|$))[A-Za-z0-9_~+/.-]`;

/** More parameters than a shared access signature ever has (about a dozen). */
const MAX_SAS_PARAMS = 24;

/** A piece of a token split by spaces: 4+ token characters, one of them a digit. */
const TOKEN_PIECE = "(?=[A-Za-z0-9._~+/-]{4})[A-Za-z._~+/-]*[0-9][A-Za-z0-9._~+/-]*";

/** Credential patterns by stable name: the name is what an error reports, never the value. */
export const SECRET_PATTERNS = {
  // The token may be split by invisible characters, or by spaces into pieces that each hold a digit (so that prose
  // such as "bearer token for tenant 42" passes).
  bearer_token: new RegExp(
    `${anyCase("b")}${I}${anyCase("e")}${I}${anyCase("a")}${I}${anyCase("r")}${I}${anyCase("e")}${I}${anyCase("r")}` +
      `(?:[\\s${INVISIBLE_CHARS}]+|\\+)(?:(?:[A-Za-z0-9._~+/-]${I}){8,}|${TOKEN_PIECE}(?:\\s+${TOKEN_PIECE})+)`,
  ),
  jwt: new RegExp(`eyJ(?:${W}[A-Za-z0-9_-]){2,}${W}\\.${W}eyJ(?:${W}[A-Za-z0-9_-]){2,}${W}\\.`),
  pem_private_key: /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----/,
  // sk-/pk-/rk- keys (OpenAI, Anthropic, Stripe-style) with a body of 16+ characters.
  api_key: /(?<![A-Za-z0-9])(?:sk|pk|rk)(?:-|_live_|_test_)[A-Za-z0-9_-]{16,}/,
  github_token: /(?<![A-Za-z0-9])(?:gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{20,})/,
  slack_token: /(?<![A-Za-z0-9])(?:xox[a-z]|xapp)-[A-Za-z0-9-]{8,}/,
  // The path of an incoming webhook is its credential.
  slack_webhook_url:
    /hooks\.slack(?:-gov)?\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9]{6,}\/[A-Za-z0-9]{6,}\/[A-Za-z0-9]{8,}/,
  // A 40-character secret is only told apart from a SHA-1 digest by what names it, or by the key id before it.
  aws_secret_access_key: new RegExp(
    `(?:${credentialName("secret", "access", "key")}|${credentialName("aws", "secret")}(?:[_-]?${anyCase("key")})?)` +
      `["']?(?:\\s*[:=>]+\\s*|\\s+)["']?[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+])` +
      `|(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}[\\s:,;|"'=]+[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+])`,
  ),
  aws_access_key_id: /(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])/,
  google_api_key: /AIza[0-9A-Za-z_-]{35}/,
  gitlab_token: /(?<![A-Za-z0-9])gl(?:pat|dt|rt|ptt|cbt|ft|soat|imt)-[0-9A-Za-z_-]{20,}/,
  npm_token: /(?<![A-Za-z0-9])npm_[A-Za-z0-9]{36}/,
  huggingface_token: /(?<![A-Za-z0-9])hf_[A-Za-z0-9]{34,}/,
  sendgrid_api_key: /SG\.[\w-]{22}\.[\w-]{43}/,
  // Receipt's own API keys: "rcpt_" and 32 base64url characters (lib/server/keys.ts).
  receipt_api_key: /(?<![A-Za-z0-9])rcpt_[A-Za-z0-9_-]{24,}/,
  // `scheme://user:password@host`; `user@host`, `https://user@host` and `git@host:path` have no password.
  url_userinfo: /\/\/[^\s/?#@:]*:[^\s/?#@]+@/,
  // A shared access signature: its `sig=` after the `sv=`/`se=`/`sp=`/`sr=` parameters it signs. The parameters in
  // between are bounded so that text made of `sv=` parameters alone is scanned in linear time.
  azure_sas_signature: new RegExp(
    `${PARAM_START}s[vepr]=[^&#\\s]*(?:&[^&#\\s]*){0,${MAX_SAS_PARAMS}}&sig=${PARAM_VALUE}`,
  ),
  credential_query_param: new RegExp(`${PARAM_START}(?:${CREDENTIAL_PARAMS})=${PARAM_VALUE}`),
  // Confirmed by decoding: Basic credentials are base64 of "user:password" (see VERIFIERS).
  basic_auth: /[Bb][Aa][Ss][Ii][Cc](?:\s+|\+)[A-Za-z0-9+/]{4,}={0,2}/,
} as const satisfies Record<string, RegExp>;

export type SecretPatternName = keyof typeof SECRET_PATTERNS;

/** Patterns whose regex only finds a candidate; the verifier decides. */
const VERIFIERS: Partial<Record<SecretPatternName, (match: string) => boolean>> = {
  basic_auth: isBasicCredential,
};

const BASIC_PREFIX = /^[Bb][Aa][Ss][Ii][Cc](?:\s+|\+)/;
const PRINTABLE_ASCII = /^[\x20-\x7E]+$/;

/** "Basic dXNlcjpwYXNz" holds "user:pass"; "basic understanding" decodes to bytes that are not text. */
function isBasicCredential(match: string): boolean {
  const encoded = match.replace(BASIC_PREFIX, "");
  if (encoded.length % 4 === 1) return false;
  let decoded: string;
  try {
    decoded = atob(encoded);
  } catch {
    return false;
  }
  return decoded.length >= 3 && decoded.includes(":") && PRINTABLE_ASCII.test(decoded);
}

const PATTERN_NAMES = Object.keys(SECRET_PATTERNS) as SecretPatternName[];

/**
 * All patterns as one alternation with one capture group per pattern (the sources have none of
 * their own), so each string is scanned once; the group that matched names the pattern.
 */
const COMBINED = new RegExp(PATTERN_NAMES.map((name) => `(${SECRET_PATTERNS[name].source})`).join("|"), "g");

/** The shortest text any pattern can match: `key=x`. Shorter strings skip every regex. */
const MIN_SECRET_LENGTH = 5;

const HAS_INVISIBLE = new RegExp(`[${INVISIBLE_CHARS}]`);
const ALL_INVISIBLE = new RegExp(`[${INVISIBLE_CHARS}]`, "g");

/** Percent-encoding nested deeper than this is not a plausible accident; the outer forms are still checked. */
const MAX_DECODE_ROUNDS = 4;
const PERCENT_RUN = /(?:%[0-9A-Fa-f]{2})+/g;
const PERCENT_ASCII = /%([0-7][0-9A-Fa-f])/g;

/**
 * The name of the first credential pattern `text` matches, or `undefined`. The text is checked
 * as is, with invisible characters removed, and after each round of percent-decoding.
 */
export function matchSecretPattern(text: string): SecretPatternName | undefined {
  if (text.length < MIN_SECRET_LENGTH) return undefined;
  let form = text;
  for (let round = 0; ; round++) {
    const found =
      scanForm(form) ?? (HAS_INVISIBLE.test(form) ? scanForm(form.replace(ALL_INVISIBLE, "")) : undefined);
    if (found !== undefined || round === MAX_DECODE_ROUNDS || !form.includes("%")) return found;
    const decoded = percentDecode(form);
    if (decoded === form) return undefined;
    form = decoded;
  }
}

function scanForm(text: string): SecretPatternName | undefined {
  COMBINED.lastIndex = 0;
  for (let match = COMBINED.exec(text); match !== null; match = COMBINED.exec(text)) {
    const name = matchedName(match);
    const verify = VERIFIERS[name];
    if (verify === undefined || verify(match[0])) return name;
    // A rejected candidate: look again from the next character.
    COMBINED.lastIndex = match.index + 1;
  }
  return undefined;
}

function matchedName(match: RegExpExecArray): SecretPatternName {
  for (let group = 1; group < match.length; group++) {
    if (match[group] !== undefined) return PATTERN_NAMES[group - 1] as SecretPatternName;
  }
  throw new Error("unreachable: a match of the combined pattern has a matched group");
}

/**
 * One round of percent-decoding that never throws: a run of escapes that is not valid UTF-8
 * still has its ASCII escapes decoded, and a lone `%` stays as it is.
 */
export function percentDecode(text: string): string {
  return text.replace(PERCENT_RUN, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run.replace(PERCENT_ASCII, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    }
  });
}
