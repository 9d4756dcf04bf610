/**
 * Credential patterns for the redaction guard (contract §5, and issue 17's list beyond it).
 *
 * Every pattern is anchored on a literal prefix or a keyword, and no quantified group repeats
 * characters that its neighbour could also take, so a scan stays linear in the text's length.
 * Look-alikes that must pass (hex digests, UUIDs, commit shas, base64 digests, e-mail
 * addresses, `user@host` URLs) have no such prefix or keyword.
 */

/** Characters that render as nothing, used to split a credential so a plain regex misses it. */
export const INVISIBLE_CHARS = "\\u00AD\\u180E\\u200B-\\u200F\\u2060-\\u2064\\uFEFF";
/** Optional invisible characters between two letters of a keyword or token. */
const I = `[${INVISIBLE_CHARS}]*`;
/** Optional whitespace or invisible characters (inside a JWT). */
const W = `[\\s${INVISIBLE_CHARS}]*`;

/** A case-insensitive spelling of an ASCII word, as a regex source (the combined regex has no `i` flag). */
export function anyCase(word: string): string {
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
 * (decoded before it is matched again), `REDACTED`, `null`, `value` or `...` stay allowed.
 */
const PARAM_VALUE = `(?!(?:${anyCase("redacted")}|${anyCase("null")}|${anyCase("none")}|${anyCase("value")}s?|\\.+)(?![A-Za-z0-9_~+/.-]))[A-Za-z0-9_~+/.-]`;

/** More parameters than a shared access signature ever has (about a dozen). */
const MAX_SAS_PARAMS = 24;

/**
 * How a JWT's header and payload start: base64url of `{` then `"` (`eyJ`), a space (`eyA`), a tab (`ewk`), a line
 * feed (`ewo`) or a carriage return (`ew0`). JSON written with spaces is still a JWT, and so is one encoded with
 * standard base64 (`+`, `/`, `=` padding) by a careless encoder.
 */
const JWT_PART = `e(?:y[JA]|w[kow0])(?:${W}[A-Za-z0-9_+/-]){2,}(?:${W}=){0,2}`;

/**
 * Names that say "the value is a credential" when a name ends with them: `api_key`, `X-Api-Key`, `MY_SERVICE_TOKEN`,
 * `clientSecret`, `password`. A word starts the name or follows `_`, `-`, `.` or a lower-case letter (camelCase).
 * Pagination tokens (`page_token`, `nextPageToken`, `cursor_token`, `continuation_token`, `sync_token`) are opaque
 * cursors, not credentials. `key` alone is not here: cache, sort and object keys hold digests every day.
 */
export const CREDENTIAL_WORDS =
  "(?:(?<![A-Za-z0-9])|(?<=[a-z0-9])(?=[A-Z]))(?:" +
  [
    ...["api", "access", "secret", "private", "signing", "account", "encryption", "master"].map((word) =>
      credentialName(word, "key"),
    ),
    `(?<!(?:${["page", "cursor", "continuation", "sync"].map(anyCase).join("|")})[_.-]?)${anyCase("token")}`,
    anyCase("secret"),
    anyCase("password"),
    anyCase("passwd"),
    `${anyCase("credential")}s?`,
  ].join("|") +
  ")";
/** Characters of a credential value written after its name (no quotes, spaces, `$`, braces or `<>`). */
export const BLOB_CHARS = "A-Za-z0-9+/_.~!#%&*?@^|-";

/** A piece of a token split by spaces: 4+ token characters, one of them a digit. */
const TOKEN_PIECE = "(?=[A-Za-z0-9._~+/-]{4})[A-Za-z._~+/-]*[0-9][A-Za-z0-9._~+/-]*";

/** Credential patterns by stable name: the name is what an error reports, never the value. */
export const SECRET_PATTERNS = {
  // The token may be split by invisible characters, or by spaces into pieces that each hold a digit (so that prose
  // such as "bearer token for tenant 42" passes).
  bearer_token: new RegExp(
    `${anyCase("b")}${I}${anyCase("e")}${I}${anyCase("a")}${I}${anyCase("r")}${I}${anyCase("e")}${I}${anyCase("r")}` +
      `(?:[\\s${INVISIBLE_CHARS}]+|\\+)(?:(?:[A-Za-z0-9._~+/-]${I}){7,}|${TOKEN_PIECE}(?:\\s+${TOKEN_PIECE})+)`,
  ),
  jwt: new RegExp(`${JWT_PART}${W}\\.${W}${JWT_PART}${W}\\.`),
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
  // `api_key: 3f9a…`, `"client_secret": "Zx8K…"`, `MY_SERVICE_TOKEN=9c4b…`: a name that says credential, then a value
  // that looks random (see VERIFIERS). A digest under a name that says digest (`sha256=`, `token_hash:`) is no secret.
  credential_assignment: new RegExp(
    `${CREDENTIAL_WORDS}["']?[ \\t]*(?:=>|:=|[:=])[ \\t]*["']?[${BLOB_CHARS}]{16,}={0,2}(?![${BLOB_CHARS}])`,
  ),
  // Confirmed by decoding: Basic credentials are base64 of "user:password" (see VERIFIERS).
  basic_auth: /[Bb][Aa][Ss][Ii][Cc](?:\s+|\+)[A-Za-z0-9+/]{4,}={0,2}/,
} as const satisfies Record<string, RegExp>;

export type SecretPatternName = keyof typeof SECRET_PATTERNS;
