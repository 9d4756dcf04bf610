/**
 * Credential samples for the redaction guard's tests: for every pattern, values it must refuse
 * (plain, and in the disguises producers and people actually use) and look-alikes it must let
 * through. Assembled at runtime so the repository never contains a string that looks like a
 * live credential.
 */
import type { SecretPatternName } from "@/lib/contract/redaction";

export const join = (...parts: string[]) => parts.join("");

/** Every byte percent-encoded, as a URL encoder asked to be thorough would write it. */
export const percentEncodeAll = (text: string) =>
  Array.from(
    new TextEncoder().encode(text),
    (byte) => `%${byte.toString(16).toUpperCase().padStart(2, "0")}`,
  ).join("");

/** Standard base64 of UTF-8 text, and base64url without padding, and lower-case hex. */
export const base64Of = (text: string) => btoa(String.fromCharCode(...new TextEncoder().encode(text)));
export const base64UrlOf = (text: string) =>
  base64Of(text).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
export const hexOf = (text: string) =>
  Array.from(new TextEncoder().encode(text), (byte) => byte.toString(16).padStart(2, "0")).join("");
/** Fullwidth forms of ASCII letters and digits (U+FF01…), as a compatibility-form disguise. */
export const fullwidth = (text: string) =>
  text.replace(/[!-~]/g, (char) => String.fromCharCode(char.charCodeAt(0) + 0xfee0));

const ZWSP = "\u200B";
const ZWNJ = "\u200C";
const ZWJ = "\u200D";
const WORD_JOINER = "\u2060";
const BOM = "\uFEFF";
const SOFT_HYPHEN = "\u00AD";

const AWS_SECRET = join("wJalrXUtnFEMI/K7MDENG/", "bPxRfiCYEXAMPLEKEY");
/** A JWT whose JSON was written with spaces and line breaks: its parts start `eyA` / `ewo`, not `eyJ`. */
const SPACED_JWT = join(
  base64UrlOf('{ "alg": "HS256", "typ": "JWT" }'),
  ".",
  base64UrlOf('{\n  "sub": "1234567890",\n  "iat": 1516239022\n}'),
  ".",
  "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
);
const GITHUB_TOKEN = join("ghp_", "A1b2C3d4E5f6".repeat(3));
const JWT = join("eyJ", "hbGciOiJIUzI1NiJ9", ".eyJ", "zdWIiOiIxMjM0In0", ".", "c2lnbmF0dXJl-_x");

/** Plain samples: each must be refused under its pattern's name, alone and inside prose. */
export const SAMPLES: Record<SecretPatternName, string[]> = {
  bearer_token: [
    join("Bearer ", "abc123DEF456ghi789"),
    join("authorization: bearer ", "Zm9vYmFyYmF6cXV4"),
    join("Bearer\t\t", "abc123DEF456ghi789"),
    join("Bearer\u00A0", "abc123DEF456ghi789"),
    join("Bearer ", "abc1234"),
    join("Authorization: Bearer ", "x7Kp2Qa"),
    join("Bearer ", "Ab9_-.~"),
    join("Bearer ", "abcdefg"),
    join("Bearer ", "Invalid1"),
    join("Bearer ", "tokens2x"),
  ],
  jwt: [
    JWT,
    SPACED_JWT,
    join(base64UrlOf('{"alg": "HS256", "typ": "JWT"}'), ".", base64UrlOf('{"sub": "1"}'), ".sig"),
    join(base64UrlOf('{\r\n"alg":"HS256"}'), ".", base64UrlOf('{\t"sub":"1"}'), ".sig"),
    join(base64Of('{ "alg": "HS256", "kid": "k?>" }'), ".", base64Of('{ "sub": "12" }'), ".c2ln"),
  ],
  pem_private_key: [
    join("-----BEGIN ", "RSA PRIVATE KEY-----\nMIIEow"),
    join("-----BEGIN ", "PRIVATE KEY-----"),
  ],
  api_key: [
    join("sk-", "proj-A1b2C3d4E5f6G7h8I9j0"),
    join("pk-", "0123456789abcdef"),
    join("rk_", "live_", "51HqLyjWDarjtT1zdp7dc"),
  ],
  github_token: [
    join("ghp_", "A".repeat(36)),
    join("ghs_", "b1".repeat(18)),
    join("github_", "pat_", "11ABC".repeat(5)),
  ],
  slack_token: [
    join("xoxb-", "123456789012-abcdefABCDEF"),
    join("xoxp-", "1-2-3-4abcdefgh"),
    join("xapp-", "1-A0123ABCD-4567890123-abcdef0123456789"),
  ],
  slack_webhook_url: [
    join("https://hooks.slack.com/services/", "T0ABCDEF1/B0ABCDEF2/", "abcdefghijklmnopqrstuvwx"),
    join("https://hooks.slack.com/workflows/", "T0ABCDEF1/A0ABCDEF2/", "123456789/abcdefghijkl"),
  ],
  aws_secret_access_key: [
    join("aws_secret_access_key = ", AWS_SECRET),
    join('"SecretAccessKey": "', AWS_SECRET, '"'),
    join("AWS_SECRET=", AWS_SECRET),
    join("AKIA", "IOSFODNN7EXAMPLE:", AWS_SECRET),
  ],
  aws_access_key_id: [join("AKIA", "IOSFODNN7EXAMPLE"), join("ASIA", "Y34FZKBOKMUTVV7A")],
  google_api_key: [join("AIza", "SyD-abcdefghijklmnopqrstuvwxyz01234")],
  gitlab_token: [join("glpat-", "xYz12-AbC34_dEf56gHi7"), join("gldt-", "AbCdEfGhIjKlMnOpQrSt")],
  npm_token: [join("npm_", "aB3".repeat(12))],
  huggingface_token: [join("hf_", "abcdefghijklmnopqrstuvwxyzABCDEFGH")],
  sendgrid_api_key: [join("SG.", "a1B2c3D4e5F6g7H8i9J0kL", ".", "m1N2o3P4q5R6s7T8u9V0w".repeat(2), "x")],
  receipt_api_key: [join("rcpt_", "Zm9vYmFyYmF6cXV4", "Zm9vYmFy_mF6cX-4")],
  url_userinfo: [
    join("https://deploy:", "hunter2@git.example.com/repo.git"),
    join("postgres://app:", "s3cret@db.internal:5432/app"),
    join("redis://:", "pw123@cache:6379"),
  ],
  azure_sas_signature: [
    join(
      "https://acct.blob.core.windows.net/c/b.txt?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-12-31T00:00:00Z&sig=",
      "AbCdEf0123456789%2B%2FxYz%3D",
    ),
    join("sp=racwdl&st=2026-01-01&se=2026-02-01&spr=https&sv=2022-11-02&sr=c&sig=", "AbCdEf0123456789"),
  ],
  credential_query_param: [
    join("https://api.example.com/v1/items?api_key=", "abc123"),
    join("https://api.example.com/cb?page=2&access_token=", "ya29.abc"),
    join("https://api.example.com/?APIKEY=", "1"),
    join("https://api.example.com/?token=", "t0k"),
    join("https://cdn.example.com/f.png?expires=1&signature=", "a1b2"),
    join("https://cdn.example.com/f.png?sig=", "a1b2"),
    join("https://db.example.com/?user=app&password=", "hunter2"),
    join("https://app.example.com/?secret=", "s"),
    join("https://maps.example.com/api?key=", "abc"),
    join("curl -d client_secret=", "abc123"),
    join("DefaultEndpointsProtocol=https;AccountName=x;AccountKey=", "abc123=="),
    join("https://app.example.com/#access_token=", "abc&token_type=bearer"),
  ],
  credential_assignment: [
    join("api_key: ", "3f9a2c7e1b8d4f6a0c5e9b2d7f1a4c8e"),
    join('{"client_secret": "', "Zx8Kq2Lm9Pw4Rt7Vb3Nc6Hd1", '"}'),
    join("MY_SERVICE_TOKEN=", "9c4b1e7f2a6d8c3b5e0f1a2b3c4d5e6f"),
    join("X-Api-Key: ", "Qm9vYmFyYmF6cXV4MTIzNDU2"),
    join("accessToken => ", "eW91IGZvdW5kIGl0IDEyMw=="),
    join("webhook_secret := ", "whsec_5FqZ2pLk8XvN3mRt"),
    join("password: ", "Tr0ub4dor&3xK9mPq2Lw"),
  ],
  basic_auth: [
    join("Basic ", btoa("user:pass")),
    join("Authorization: basic ", btoa("svc-account:correct horse")),
  ],
};

/** Disguised samples: percent-encoded (once or more), split by invisible characters or whitespace. */
export const DISGUISED: { pattern: SecretPatternName; how: string; value: string }[] = [
  { pattern: "bearer_token", how: "%20 for the space", value: join("Bearer%20", "abc123DEF456ghi789") },
  {
    pattern: "bearer_token",
    how: "+ for the space",
    value: join("Authorization=Bearer+", "abc123DEF456ghi789"),
  },
  {
    pattern: "bearer_token",
    how: "a zero-width space for the space",
    value: join("Bearer", ZWSP, "abc123DEF456"),
  },
  {
    pattern: "bearer_token",
    how: "invisible characters in the word and the token",
    value: join("Be", ZWNJ, "arer ", "abc1", ZWJ, "23DE", WORD_JOINER, "F4", SOFT_HYPHEN, "56gh"),
  },
  {
    pattern: "bearer_token",
    how: "newlines and tabs before the token",
    value: join("Bearer\n\t ", "abc123DEF456"),
  },
  { pattern: "bearer_token", how: "spaces inside the token", value: join("Bearer ", "abc123 DEF456 ghi789") },
  { pattern: "bearer_token", how: "percent-encoded twice", value: join("Bearer%2520", "abc123DEF456ghi789") },
  {
    pattern: "jwt",
    how: "whitespace and line breaks between and inside its parts",
    value: join("eyJ", "hbGciOiJIUzI1NiJ9 \n.\n eyJ", "zdWIiOi IxMjM0In0\t.", "c2ln"),
  },
  {
    pattern: "jwt",
    how: "zero-width characters inside",
    value: join(
      "eyJ",
      "hbGci",
      ZWSP,
      "OiJIUzI1NiJ9.",
      BOM,
      "eyJ",
      "zdWIi",
      SOFT_HYPHEN,
      "OiIxMjM0In0.",
      "c2ln",
    ),
  },
  { pattern: "jwt", how: "percent-encoded dots", value: JWT.replaceAll(".", "%2E") },
  { pattern: "jwt", how: "every byte percent-encoded", value: percentEncodeAll(JWT) },
  {
    pattern: "github_token",
    how: "a zero-width space after the prefix",
    value: join("ghp_", ZWSP, "A".repeat(36)),
  },
  {
    pattern: "github_token",
    how: "every byte percent-encoded",
    value: percentEncodeAll(join("ghp_", "A".repeat(36))),
  },
  {
    pattern: "url_userinfo",
    how: "a percent-encoded URL",
    value: encodeURIComponent(join("https://deploy:", "hunter2@git.example.com/")),
  },
  {
    pattern: "url_userinfo",
    how: "a URL percent-encoded twice",
    value: encodeURIComponent(encodeURIComponent(join("https://deploy:", "hunter2@git.example.com/"))),
  },
  {
    pattern: "credential_query_param",
    how: "a percent-encoded parameter name",
    value: join("https://api.example.com/?api%5Fkey=", "abc123"),
  },
  {
    pattern: "credential_query_param",
    how: "a redirect URL with an encoded query",
    value: join("https://app.example.com/login?next=", encodeURIComponent("/cb?access_token=abc123")),
  },
  {
    pattern: "aws_secret_access_key",
    how: "percent-encoded / and =",
    value: join("aws_secret_access_key%3D", AWS_SECRET.replaceAll("/", "%2F")),
  },
  {
    pattern: "slack_webhook_url",
    how: "percent-encoded slashes",
    value: join(
      "https%3A%2F%2Fhooks.slack.com%2Fservices%2F",
      "T0ABCDEF1%2FB0ABCDEF2%2F",
      "abcdefghijklmnop",
    ),
  },
  { pattern: "github_token", how: "base64", value: base64Of(GITHUB_TOKEN) },
  {
    pattern: "github_token",
    how: "base64 inside prose",
    value: join("auth blob ", base64Of(GITHUB_TOKEN), " sent"),
  },
  { pattern: "github_token", how: "base64url", value: base64UrlOf(join("github: ", GITHUB_TOKEN, "?")) },
  { pattern: "github_token", how: "hex", value: hexOf(GITHUB_TOKEN) },
  { pattern: "github_token", how: "base64 glued to a word", value: join("auth_", base64Of(GITHUB_TOKEN)) },
  { pattern: "github_token", how: "hex glued to a word", value: join("id-", hexOf(GITHUB_TOKEN)) },
  { pattern: "github_token", how: "hex glued to a hex digit", value: join("a", hexOf(GITHUB_TOKEN)) },
  {
    pattern: "github_token",
    how: "upper-case hex with 0x",
    value: join("0x", hexOf(GITHUB_TOKEN).toUpperCase()),
  },
  { pattern: "api_key", how: "base64", value: base64Of(join("sk-", "proj-A1b2C3d4E5f6G7h8I9j0")) },
  { pattern: "api_key", how: "hex", value: hexOf(join("sk-", "proj-A1b2C3d4E5f6G7h8I9j0")) },
  { pattern: "aws_access_key_id", how: "base64", value: base64Of(join("AKIA", "IOSFODNN7EXAMPLE")) },
  { pattern: "aws_access_key_id", how: "hex", value: hexOf(join("AKIA", "IOSFODNN7EXAMPLE")) },
  { pattern: "slack_token", how: "base64", value: base64Of(join("xoxb-", "123456789012-abcdefABCDEF")) },
  {
    pattern: "bearer_token",
    how: "a base64 Authorization header",
    value: base64Of(join("Authorization: Bearer ", "abc123DEF456ghi789")),
  },
  { pattern: "jwt", how: "base64 of the whole token", value: base64Of(JWT) },
  { pattern: "aws_access_key_id", how: "fullwidth AKIA", value: join(fullwidth("AKIA"), "IOSFODNN7EXAMPLE") },
  { pattern: "aws_access_key_id", how: "all fullwidth", value: fullwidth(join("AKIA", "IOSFODNN7EXAMPLE")) },
  { pattern: "github_token", how: "fullwidth prefix", value: join(fullwidth("ghp_"), "A".repeat(36)) },
  { pattern: "bearer_token", how: "fullwidth letters", value: fullwidth(join("Bearer ", "abc123DEF456")) },
  { pattern: "jwt", how: "a spaced header, dots percent-encoded", value: SPACED_JWT.replaceAll(".", "%2E") },
  {
    pattern: "api_key",
    how: "a soft hyphen inside",
    value: join("sk-", "proj-A1b2C3d4", SOFT_HYPHEN, "E5f6G7h8I9j0"),
  },
];

/** Look-alikes that must stay allowed, by the pattern they resemble. */
export const LOOK_ALIKES: Record<SecretPatternName, string[]> = {
  bearer_token: [
    "Bearer",
    "bearer auth",
    "the bearer of bad news",
    "Bearer <token>",
    "Authorization: Bearer ***",
    "the bearer token for tenant 42 was rotated in 2026",
    "Bearer v2 12 34",
    "Bearer authentication failed for this client",
    "401: Bearer expired",
    "the Authorization header must be Bearer, not Basic",
    "Bearer credentials rejected",
    "BEARER REQUIRED",
  ],
  jwt: ["eyJhbGciOiJIUzI1NiJ9", "eyJ.eyJ.", "eyJhbGciOiJIUzI1NiJ9 is a JOSE header"],
  pem_private_key: ["-----BEGIN PUBLIC KEY-----", "-----BEGIN CERTIFICATE-----"],
  api_key: ["sk-short", "task-1234567890abcdefghij", "disk-0123456789abcdef0123"],
  github_token: ["ghp_short", "https://github.com/org/repo/pull/42", "github_pat_"],
  slack_token: ["xoxb-1", "xapp-1", "#alerts-xapp-team"],
  slack_webhook_url: ["https://hooks.slack.com/services/", "https://api.slack.com/apps/A0123ABCD"],
  aws_secret_access_key: [
    // SHA-1 digest, git commit sha, a base64 SHA-256 digest, and the secret's name without a secret.
    "da39a3ee5e6b4b0d3255bfef95601890afd80709",
    "commit 9fceb02d0ae598e95dc970b74767f19372d61af8",
    "sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=",
    "aws_secret_access_key=<redacted>",
  ],
  aws_access_key_id: ["AKIA123", "AKIAIOSFODNN7EXAMPLEXYZ"],
  google_api_key: ["AIzaShort", "AIza"],
  gitlab_token: ["glpat-short", "glossary-of-terms-and-more-words"],
  npm_token: ["npm_install_dependencies_for_the_whole_repo", "npm_config_registry"],
  huggingface_token: ["hf_hub_download", "hf_transfer_enabled_for_every_model_card_x"],
  sendgrid_api_key: ["SG.short.x", "SG.1"],
  receipt_api_key: ["rcpt_abcd", "rcpt_"],
  url_userinfo: [
    "alice@example.com",
    "https://alice@example.com/x",
    "git@github.com:org/repo.git",
    "ssh://git@github.com:22/org/repo.git",
    "http://127.0.0.1:8080/reports@v2",
    "https://user:@example.com/",
  ],
  azure_sas_signature: [
    "https://acct.blob.core.windows.net/c/b.txt",
    "https://acct.blob.core.windows.net/c/b.txt?sv=2022-11-02&sp=r",
  ],
  credential_query_param: [
    "https://x.example.com/list?page=2&sort=name",
    "keyboard=1",
    "https://x.example.com/?monkey=1",
    "https://x.example.com/?next_page_token=abc&sort_key=name",
    "https://x.example.com/?token=",
    "https://x.example.com/?token=***",
    "https://x.example.com/?access_token=<redacted>",
    "https://x.example.com/?api_key={API_KEY}",
    "https://x.example.com/?token=REDACTED&page=2",
    "https://x.example.com/?token=%2A%2A%2A",
    "refresh the token before it expires",
    "tokens=3",
  ],
  credential_assignment: [
    "api_key: <your key here>",
    join("api_key: $", "{OPENAI_API_KEY}"),
    "token: process.env.SERVICE_TOKEN",
    "next_page_token: CiAKGjBpNDd2Nmp2Zml2cXRiMjVlOTA5MHI5ZXY3",
    "pageToken: CiAKGjBpNDd2Nmp2Zml2cXRiMjVlOTA5MHI5ZXY3",
    `token_sha256: ${"ab12".repeat(16)}`,
    `password_digest: ${"9f".repeat(20)}`,
    "secret: rotated yesterday by the on-call owner",
    "password: see the runbook",
    "token: abc123",
    `cache_key: ${"e3b0c442".repeat(8)}`,
    "secret: vault/path/to/secret2",
    "RECEIPT_ADMIN_PASSWORD: E2E_ADMIN.password",
    "clientSecret: config.oidc.v2.clientSecret",
  ],
  basic_auth: ['Basic realm="api"', "basic understanding", "Basic test", "Basic Auth is disabled"],
};

/** Values no pattern may flag: identifiers, digests and prose that records and notes hold every day. */
export const EVERYDAY_VALUES = [
  "123e4567-e89b-12d3-a456-426614174000",
  "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  `sha256:${"0f".repeat(32)}`,
  "sha1-2jmj7l5rSw0yVb/vlWAYkK/YBwk=",
  "sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg==",
  "reports/42@v3",
  "rec:01JDX7K2H5-export",
  "2026-11-30T10:00:00.000Z",
  "https://reports.example.com/.well-known/oauth-protected-resource/mcp",
  "100% done",
  "%E0%A4%A",
  "50%",
  "%%%",
  "%C0%AF%FF%FE",
  "retry=3 mode=fast",
  "status=ok latency=12ms attempts=2",
  "pass options as key=value pairs",
  `sha256=${"e3b0c442".repeat(8)}`,
  `hash: ${"da39a3ee5e6b4b0d3255bfef95601890afd80709"}`,
  `digest=sha256:${"0f1e".repeat(16)}`,
  `etag="${"5d41402abc4b2a76b9719d911017c592"}"`,
  'ETag: W/"0815-1A2B3C4D5E6F"',
  `sha512=${"z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg=="}`,
  `commit ${"9fceb02d0ae598e95dc970b74767f19372d61af8"} on main`,
  "trace_id=4bf92f3577b34da6a3ce929d0e0e4736 span_id=00f067aa0ba902b7",
  "request-id: 7f3c9a1e-5b2d-4c8e-9f1a-2b3c4d5e6f70",
  "Ｈｅｌｌｏ ｗｏｒｌｄ ｒｅｔｒｙ＝３",
  "the bearer of bad news",
  base64Of("a plain sentence about retries and timeouts"),
  hexOf("report 42 exported to the archive"),
  "ewoks.eyebrows.example.com",
  "a one-time link /join?token=… is sent",
  "`/join?token=…`",
  'headers: { Authorization: "Bearer rcpt_…" }',
  "https://x.example.com/?token=...",
  "-----BEGIN … PRIVATE KEY----- is what a PEM key's header looks like",
];
