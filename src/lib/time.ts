/** Wire format of every timestamp: RFC 3339 in UTC with milliseconds. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

export function utcDay(ms: number): string {
  return iso(ms).slice(0, 10);
}
