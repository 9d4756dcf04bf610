/**
 * How text is matched against the credential patterns (secret-patterns.ts): every pattern in one scan, the assignment
 * pattern only behind a cheap hint, verifiers for candidates a regex cannot decide, and the text's other forms
 * (NFKC, invisible characters removed, base64 and hex runs decoded, percent-decoding round by round).
 */
import {
  anyCase,
  BLOB_CHARS,
  CREDENTIAL_WORDS,
  INVISIBLE_CHARS,
  SECRET_PATTERNS,
  type SecretPatternName,
} from "./secret-patterns";

/** Patterns whose regex only finds a candidate; the verifier decides. */
const VERIFIERS: Partial<Record<SecretPatternName, (match: string) => boolean>> = {
  bearer_token: (match) => !BEARER_PROSE.test(match),
  basic_auth: isBasicCredential,
};

/** Everything of an assignment up to its value: the name, the separator and an opening quote. */
const ASSIGNMENT_HEAD = /^[^:=]*(?:=>|:=|[:=])[ \t]*["']?/;
const HEX_WITH_DASHES = /^[0-9A-Fa-f-]+$/;
const DIGIT = /[0-9]/;
const LETTER = /[A-Za-z]/;
const SEGMENT_SEPARATOR = /[._/-]/;
const WORD = /^[A-Za-z]*$/;
const ELLIPSIS = /\u2026/g;
const LETTER_DIGIT_SWITCH = /[A-Za-z][0-9]|[0-9][A-Za-z]/g;
const MIN_SWITCHES = 4;

/**
 * A value that reads as a generated secret rather than a word, a path or a version: 16+ characters holding letters
 * and digits, and either hex (a UUID counts), or both cases, or letters and digits mixed throughout.
 * "vault/path/to/secret2" and "process.env.SERVICE_TOKEN" are not; "3f9a2c7e1b8d4f6a…" and "Zx8Kq2Lm9Pw4…" are.
 */
function looksRandom(value: string): boolean {
  const body = value.replace(/=+$/, "");
  if (body.length < 16 || !DIGIT.test(body) || !LETTER.test(body)) return false;
  if (HEX_WITH_DASHES.test(body)) return true;
  // A reference made of words (`E2E_ADMIN.password`, `config.v2.apiKey`) names a secret; it is not one.
  if (body.split(SEGMENT_SEPARATOR).every((segment) => WORD.test(segment) || segment.length <= 4))
    return false;
  if (/[a-z]/.test(body) && /[A-Z]/.test(body)) return true;
  return (body.match(LETTER_DIGIT_SWITCH)?.length ?? 0) >= MIN_SWITCHES;
}

const CREDENTIAL_FIELD_NAME = new RegExp(`${CREDENTIAL_WORDS}$`);
const WHOLE_BLOB = new RegExp(`^[${BLOB_CHARS}]{16,}={0,2}$`);

/**
 * `credential_assignment` when an object key names a credential and its string value looks generated
 * (`{"api_key": "3f9a…"}`): the JSON form of `api_key: 3f9a…`, which the walk sees as two separate strings.
 */
export function matchCredentialField(key: string, value: string): SecretPatternName | undefined {
  if (value.length < 16 || !CREDENTIAL_FIELD_NAME.test(key.normalize("NFKC"))) return undefined;
  const trimmed = value.normalize("NFKC").trim();
  return WHOLE_BLOB.test(trimmed) && looksRandom(trimmed) ? "credential_assignment" : undefined;
}

/**
 * "Bearer" then one word that error messages and docs put after it ("Bearer authentication failed", "Bearer
 * expired"): prose, not a token. Only these whole words; any other 7+ characters are a token.
 */
const BEARER_PROSE = new RegExp(
  `^[^\\s+]*[\\s${INVISIBLE_CHARS}+]+[${INVISIBLE_CHARS}]*(?:${[
    "authentication",
    "authorization",
    "authorisation",
    "credentials?",
    "required",
    "expired",
    "invalid",
    "missing",
    "rejected",
    "headers?",
    "schemes?",
    "tokens?",
    "prefix",
  ]
    .map(anyCase)
    .join("|")})[${INVISIBLE_CHARS}]*$`,
);

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

/**
 * Scanned on its own, and only when a cheap test finds one of its words: its lookbehinds at every position would
 * make the combined scan several times slower (`npm run bench`).
 */
const ASSIGNMENT = new RegExp(SECRET_PATTERNS.credential_assignment.source, "g");
// A credential word right before a separator: the cheap test that lets most text skip the full pattern.
const ASSIGNMENT_HINT = /(?:token|secret|passw(?:or)?d|key|credentials?)["']?[ \t]*[:=]/i;

const PATTERN_NAMES = (Object.keys(SECRET_PATTERNS) as SecretPatternName[]).filter(
  (name) => name !== "credential_assignment",
);

/**
 * All other patterns as one alternation with one capture group per pattern (the sources have none
 * of their own), so each string is scanned once; the group that matched names the pattern.
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

/** Anything but printable ASCII and common whitespace: only such text can change under NFKC. */
const NON_ASCII = /[^\t\n\r -~]/;

/**
 * The name of the first credential pattern `text` matches, or `undefined`. The text is checked
 * as is and in Unicode compatibility form (NFKC: fullwidth `ＡＫＩＡ` is `AKIA`), with invisible
 * characters removed, with base64 and hex runs decoded, and after each round of percent-decoding.
 */
export function matchSecretPattern(text: string): SecretPatternName | undefined {
  if (text.length < MIN_SECRET_LENGTH) return undefined;
  if (text.length > MAX_REMEMBERED_LENGTH) return matchAnyForm(text);
  const known = remembered.get(text);
  if (known !== undefined) return known ?? undefined;
  const found = matchAnyForm(text);
  if (remembered.size >= MAX_REMEMBERED) remembered.clear();
  remembered.set(text, found ?? null);
  return found;
}

/**
 * The answers for strings met before: a collector repeats its client's and servers' names, versions, tools,
 * transports and labels in every record, and the scan is a pure function of the text. Bounded in count and in
 * each string's length (at most about 5 MB); emptied when full, so unique ids cost nothing but their own scan.
 */
const MAX_REMEMBERED = 10_000;
const MAX_REMEMBERED_LENGTH = 256;
const remembered = new Map<string, SecretPatternName | null>();

function matchAnyForm(text: string): SecretPatternName | undefined {
  const found = matchForms(text);
  if (found !== undefined || !NON_ASCII.test(text)) return found;
  // "…" would become "...", which reads as a value ("token=…", "Bearer rcpt_…"): it stays a placeholder, as "<".
  const compatible = text.replaceAll(ELLIPSIS, "<").normalize("NFKC");
  return compatible === text ? undefined : matchForms(compatible);
}

function matchForms(text: string): SecretPatternName | undefined {
  let form = text;
  for (let round = 0; ; round++) {
    const visible = HAS_INVISIBLE.test(form) ? form.replace(ALL_INVISIBLE, "") : form;
    const found =
      scanForm(form) ?? (visible === form ? undefined : scanForm(visible)) ?? scanEncodedRuns(visible);
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
  return (text.includes(":") || text.includes("=")) && ASSIGNMENT_HINT.test(text)
    ? scanAssignments(text)
    : undefined;
}

function scanAssignments(text: string): SecretPatternName | undefined {
  ASSIGNMENT.lastIndex = 0;
  for (let match = ASSIGNMENT.exec(text); match !== null; match = ASSIGNMENT.exec(text)) {
    if (looksRandom(match[0].replace(ASSIGNMENT_HEAD, ""))) return "credential_assignment";
    ASSIGNMENT.lastIndex = match.index + 1;
  }
  return undefined;
}

/** A run that may be base64 (standard or url-safe) or hex: 16+ characters, so 12+ bytes, the shortest token's size. */
const MIN_ENCODED_RUN = 16;
/** Characters of base64 (standard and url-safe) and hex, by char code. */
const RUN_CHAR = new Uint8Array(128);
for (const char of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-")
  RUN_CHAR[char.charCodeAt(0)] = 1;
/** Hex inside a run (`0x6768…`, `id-6768…`): 16+ hex digits. */
const ONE_CASE_HEX = /^(?:[0-9a-f]+|[0-9A-F]+)$/;
const HEX_PARTS = /[0-9A-Fa-f]{16,}/g;
const DECODED_TEXT = /^[\x20-\x7E\t\n\r]+$/;

/**
 * Credentials written in base64 or hex (`Z2hwX0…` is `ghp_…`): each run that decodes to printable text is scanned
 * as text, one level deep. A digest or random bytes decode to non-text and are let through, so a bare hex or
 * base64 blob is not refused for its shape alone (it cannot be told from a SHA-256 digest).
 */
function scanEncodedRuns(text: string): SecretPatternName | undefined {
  if (text.length < MIN_ENCODED_RUN) return undefined;
  // A plain loop rather than a global regex: this runs on every string, and most have no long run at all.
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : 0;
    if (code < 128 && RUN_CHAR[code] === 1) {
      if (start < 0) start = i;
      continue;
    }
    if (start >= 0 && i - start >= MIN_ENCODED_RUN) {
      const found = scanRun(text.slice(start, i));
      if (found !== undefined) return found;
    }
    start = -1;
  }
  return undefined;
}

/**
 * A run may begin with text that is not part of the encoding (`auth_Z2hw…`, `id-6768…`): base64 is tried at each of
 * its four alignments and hex at both, each refused cheaply unless it decodes to text.
 */
function scanRun(run: string): SecretPatternName | undefined {
  // Digests (`sha256:…`, commit shas) are hex of one case: decoded as hex only, the common case kept cheap.
  const hexOnly = ONE_CASE_HEX.test(run);
  for (let offset = 0; offset < 4 && !hexOnly; offset++) {
    const start = base64TextStart(run, offset);
    if (run.length - start < MIN_ENCODED_RUN) continue;
    const found = scanDecoded(decodeBase64(start === 0 ? run : run.slice(start)));
    if (found !== undefined) return found;
  }
  HEX_PARTS.lastIndex = 0;
  for (let hex = HEX_PARTS.exec(run); hex !== null; hex = HEX_PARTS.exec(run)) {
    for (const offset of [0, 1]) {
      const digits = hex[0].slice(offset, offset + ((hex[0].length - offset) & ~1));
      const found = mayBeHexText(digits) ? scanDecoded(decodeHex(digits)) : undefined;
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

function scanDecoded(decoded: string | undefined): SecretPatternName | undefined {
  return decoded !== undefined && DECODED_TEXT.test(decoded) ? scanForm(decoded) : undefined;
}

/**
 * Cheap refusals before decoding, which most runs (ids, digests, paths) never pass. Text bytes are 0x20–0x7E, tab,
 * line feed or carriage return: in base64 every 4th character (a byte's top six bits) is then one of `C`, `D` or
 * `I`…`f`, so the text can start only after the last group that breaks this; in hex every byte's first digit is
 * 0, 2…7.
 */
function base64TextStart(run: string, offset: number): number {
  let start = offset;
  for (let i = offset; i < run.length; i += 4) {
    const code = run.charCodeAt(i);
    const ok = code === 67 || code === 68 || (code >= 73 && code <= 90) || (code >= 97 && code <= 102);
    if (!ok) start = i + 4;
  }
  return start;
}

function mayBeHexText(hex: string): boolean {
  for (let i = 0; i < hex.length; i += 2) {
    const code = hex.charCodeAt(i);
    if (code !== 48 && (code < 50 || code > 55)) return false;
  }
  return true;
}

function decodeHex(hex: string): string {
  let decoded = "";
  for (let i = 0; i < hex.length; i += 2)
    decoded += String.fromCharCode(Number.parseInt(hex.slice(i, i + 2), 16));
  return decoded;
}

function decodeBase64(run: string): string | undefined {
  let standard = run.replace(/=+$/, "").replaceAll("-", "+").replaceAll("_", "/");
  if (standard.length % 4 === 1) standard = standard.slice(0, -1);
  try {
    return atob(standard.padEnd(Math.ceil(standard.length / 4) * 4, "="));
  } catch {
    return undefined;
  }
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
