// Values in COPY's text format (https://www.postgresql.org/docs/current/sql-copy.html, "Text Format"): fields are
// separated by tabs and rows by newlines, so a backslash, tab, newline or carriage return inside a value is escaped
// with a backslash; \N is null.

const SPECIALS = /[\\\t\n\r]/g;
const ESCAPES: Record<string, string> = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" };

export function copyField(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return "\\N";
  return String(value).replace(SPECIALS, (ch) => ESCAPES[ch] ?? ch);
}

/** A text[] value: an array literal with every element quoted (backslash and quote escaped inside quotes). */
export function copyTextArray(values: readonly string[]): string {
  return copyField(`{${values.map((v) => `"${v.replace(/["\\]/g, "\\$&")}"`).join(",")}}`);
}

/** One row: its fields in column order. */
export function copyRow(fields: readonly string[]): string {
  return `${fields.join("\t")}\n`;
}
