/** Contract timestamps: RFC 3339 in UTC with milliseconds. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
