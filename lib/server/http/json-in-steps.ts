/**
 * `JSON.parse` in steps, so a large body does not hold the event loop in one stretch: a 5 MiB OTLP export took
 * 41–57 ms in one `JSON.parse`, and 2 MiB of nested brackets 1.2 s (V8's time grows with the depth).
 *
 * One pass finds the structure (strings are skipped with `indexOf`), and every piece of the text small enough is
 * still parsed by `JSON.parse`: a container whose content fits in `pieceChars` is left as text for its parent, and a
 * larger one is built from runs of such children, each parsed as one array or object. What is accepted is exactly
 * what `JSON.parse` accepts, and a text parsed in steps is nested at most `MAX_JSON_DEPTH` deep; a generator, it
 * yields after about `pieceChars` of work. The steps cost 1.4–2.2× one `JSON.parse`, hence the direct path for the
 * common sizes. Streaming JSON parsers on npm tokenize every character in JavaScript instead.
 */

export type JsonStepSizes = {
  /**
   * Text up to this length with at most `directBrackets` brackets is one `JSON.parse`: 2 MiB takes about 14 ms here,
   * and the bracket count bounds the nesting, which V8 pays for by the level (32,768 levels took 17 ms).
   */
  directChars: number;
  directBrackets: number;
  /** Characters scanned or parsed between two yields, about a millisecond of work here. */
  pieceChars: number;
};

export const JSON_STEP_SIZES: JsonStepSizes = {
  directChars: 2 * 1024 * 1024,
  directBrackets: 32 * 1024,
  pieceChars: 128 * 1024,
};
/** Deeper than any OTLP or Receipt body; a deeper one is refused instead of walked. */
export const MAX_JSON_DEPTH = 512;

export class JsonTooDeepError extends SyntaxError {
  constructor() {
    super(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
  }
}

/** Parses `text` as `JSON.parse` does, awaiting `yieldToEventLoop` between steps. Throws a SyntaxError. */
export async function parseJsonInSteps(
  text: string,
  yieldToEventLoop: () => Promise<unknown>,
  sizes: JsonStepSizes = JSON_STEP_SIZES,
): Promise<unknown> {
  const steps = jsonParseSteps(text, sizes);
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return step.value;
    await yieldToEventLoop();
  }
}

const QUOTE = 0x22;
const COMMA = 0x2c;
const COLON = 0x3a;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/** Children parsed together (a run of text) or one child built from its own pieces. */
type Part = { run: true; start: number; end: number } | { run: false; key: string; value: unknown };

/** An open array or object; reused by depth, so a small container allocates nothing. */
type Frame = {
  isArray: boolean;
  start: number;
  keyStart: number;
  keyEnd: number;
  /** Where the current run of children still as text starts (-1: none) and ends. */
  runStart: number;
  runEnd: number;
  /** null while the container is small enough to be parsed whole by its parent. */
  parts: Part[] | null;
};

const invalid = (at: number) => new SyntaxError(`invalid JSON at position ${at}`);

/** The generator behind `parseJsonInSteps`: yields between steps, returns the value. */
export function* jsonParseSteps(
  text: string,
  { directChars, directBrackets, pieceChars }: JsonStepSizes = JSON_STEP_SIZES,
): Generator<void, unknown> {
  if (text.length <= directChars && bracketsAtMost(text, directBrackets)) return JSON.parse(text);
  const stack: Frame[] = [];
  let depth = 0;
  let work = 0;
  let scannedTo = 0;
  let pos = skipWhitespace(text, 0);

  for (;;) {
    // A value starts at `pos`.
    let start = pos;
    let end: number;
    let built: { value: unknown } | null = null;
    const first = text.charCodeAt(pos);
    const closed =
      first === OPEN_ARRAY || first === OPEN_OBJECT
        ? containerEnd(text, pos, pieceChars, MAX_JSON_DEPTH - depth)
        : -1;
    if (closed !== -1) {
      end = closed; // a container small enough for its parent to parse with it
    } else if (first === OPEN_ARRAY || first === OPEN_OBJECT) {
      if (depth === MAX_JSON_DEPTH) throw new JsonTooDeepError();
      const frame = stack[depth] ?? emptyFrame();
      stack[depth] = frame;
      frame.isArray = first === OPEN_ARRAY;
      frame.start = pos;
      frame.runStart = -1;
      frame.parts = null;
      depth++;
      pos = skipWhitespace(text, pos + 1);
      if (text.charCodeAt(pos) !== (frame.isArray ? CLOSE_ARRAY : CLOSE_OBJECT)) {
        if (!frame.isArray) pos = readKey(text, pos, frame);
        continue;
      }
      depth--;
      end = pos + 1; // empty: text like any small value
    } else if (first === QUOTE) {
      end = stringEnd(text, pos) + 1;
    } else {
      end = scalarEnd(text, pos);
      if (end === pos) throw invalid(pos);
    }
    pos = end;

    // A value ends at `pos`: record it in its container, and close every container that ends after it.
    for (;;) {
      if (pos - scannedTo >= pieceChars) {
        work += pos - scannedTo;
        scannedTo = pos;
      }
      if (work >= pieceChars) {
        work = 0;
        yield;
      }
      if (depth === 0) {
        if (skipWhitespace(text, pos) !== text.length) throw invalid(pos);
        return built ? built.value : JSON.parse(text.slice(start, end));
      }
      const frame = stack[depth - 1] as Frame;
      if (built) {
        closeRun(frame);
        addPart(frame, {
          run: false,
          key: frame.isArray ? "" : (JSON.parse(text.slice(frame.keyStart, frame.keyEnd)) as string),
          value: built.value,
        });
      } else {
        if (frame.runStart === -1) frame.runStart = frame.isArray ? start : frame.keyStart;
        frame.runEnd = end;
        if (end - frame.runStart > pieceChars) closeRun(frame);
      }
      pos = skipWhitespace(text, pos);
      const next = text.charCodeAt(pos);
      if (next === COMMA) {
        pos = skipWhitespace(text, pos + 1);
        if (!frame.isArray) pos = readKey(text, pos, frame);
        break;
      }
      if (next !== (frame.isArray ? CLOSE_ARRAY : CLOSE_OBJECT)) throw invalid(pos);
      depth--;
      start = frame.start;
      end = pos + 1;
      pos = end;
      if (frame.parts === null) {
        built = null; // small: parsed with the text around it
      } else {
        closeRun(frame);
        const value = yield* buildFrom(text, frame.isArray, frame.parts, pieceChars);
        built = { value };
        work = 0;
      }
    }
  }
}

/** Whether `text` holds at most `limit` opening brackets (a count by `indexOf`: a twentieth of a parse). */
function bracketsAtMost(text: string, limit: number): boolean {
  let count = 0;
  for (const bracket of ["[", "{"]) {
    for (let at = text.indexOf(bracket); at !== -1; at = text.indexOf(bracket, at + 1)) {
      if (++count > limit) return false;
    }
  }
  return true;
}

function emptyFrame(): Frame {
  return { isArray: true, start: 0, keyStart: 0, keyEnd: 0, runStart: -1, runEnd: 0, parts: null };
}

function addPart(frame: Frame, part: Part) {
  if (frame.parts === null) frame.parts = [part];
  else frame.parts.push(part);
}

function closeRun(frame: Frame) {
  if (frame.runStart === -1) return;
  addPart(frame, { run: true, start: frame.runStart, end: frame.runEnd });
  frame.runStart = -1;
}

/** Builds a large container from its parts, each run one `JSON.parse`, yielding between them. */
function* buildFrom(
  text: string,
  isArray: boolean,
  parts: Part[],
  pieceChars: number,
): Generator<void, unknown> {
  const array: unknown[] = [];
  const object: Record<string, unknown> = {};
  let parsed = 0;
  for (const part of parts) {
    if (!part.run) {
      if (isArray) array.push(part.value);
      else setOwn(object, part.key, part.value);
      continue;
    }
    const content = text.slice(part.start, part.end);
    if (isArray) {
      for (const value of JSON.parse(`[${content}]`) as unknown[]) array.push(value);
    } else {
      const members = JSON.parse(`{${content}}`) as Record<string, unknown>;
      for (const key of Object.keys(members)) setOwn(object, key, members[key]);
    }
    parsed += content.length;
    if (parsed >= pieceChars) {
      parsed = 0;
      yield;
    }
  }
  return isArray ? array : object;
}

/** An own property, as JSON.parse makes it: a "__proto__" key must not set the prototype. */
function setOwn(object: Record<string, unknown>, key: string, value: unknown) {
  if (key === "__proto__") {
    Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    object[key] = value;
  }
}

/** Reads `"key" :` at `pos` into the frame; returns where its value starts. */
function readKey(text: string, pos: number, frame: Frame): number {
  if (text.charCodeAt(pos) !== QUOTE) throw invalid(pos);
  frame.keyStart = pos;
  frame.keyEnd = stringEnd(text, pos) + 1;
  const colon = skipWhitespace(text, frame.keyEnd);
  if (text.charCodeAt(colon) !== COLON) throw invalid(colon);
  return skipWhitespace(text, colon + 1);
}

/**
 * Where the container opening at `pos` ends, found by its brackets alone when that is within `pieceChars`, or -1: the
 * fast path for the many small containers (JSON.parse checks their content later, with their parent's run).
 */
function containerEnd(text: string, pos: number, pieceChars: number, depthLeft: number): number {
  const limit = Math.min(text.length, pos + pieceChars);
  let depth = 0;
  for (let at = pos; at < limit; at++) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) {
      at = stringEnd(text, at);
    } else if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
      if (++depth > depthLeft) throw new JsonTooDeepError();
    } else if ((code === CLOSE_ARRAY || code === CLOSE_OBJECT) && --depth === 0) {
      return at + 1;
    }
  }
  return -1;
}

/** The closing quote of the string opening at `pos` (its escapes and characters are checked by JSON.parse later). */
function stringEnd(text: string, pos: number): number {
  for (let from = pos + 1; ; ) {
    const quote = text.indexOf('"', from);
    if (quote === -1) throw invalid(pos);
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
    from = quote + 1;
  }
}

/** The end of a number, true, false or null starting at `pos` (its spelling is checked by JSON.parse later). */
function scalarEnd(text: string, pos: number): number {
  let end = pos;
  for (; end < text.length; end++) {
    const code = text.charCodeAt(end);
    if (code === COMMA || code === CLOSE_ARRAY || code === CLOSE_OBJECT || isWhitespace(code)) break;
    if (code === QUOTE || code === OPEN_ARRAY || code === OPEN_OBJECT || code === COLON) break;
  }
  return end;
}

function isWhitespace(code: number) {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

function skipWhitespace(text: string, pos: number): number {
  while (isWhitespace(text.charCodeAt(pos))) pos++;
  return pos;
}
