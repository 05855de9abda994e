/**
 * The fields of `now` whose values differ from `before` (compared as JSON): what a partial update
 * (PATCH) should send, so that what the person left alone stays as it is stored, defaults included.
 */
export function changedFields<T extends object>(before: T, now: T): Partial<T> {
  return Object.fromEntries(Object.entries(now).filter(([key, value]) => JSON.stringify(value) !== JSON.stringify(before[key as keyof T]))) as Partial<T>;
}
