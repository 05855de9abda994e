/**
 * The list after a refresh read the newest `limit` rows again: those, then the loaded rows older than
 * the last of them (ids are ULIDs, newest first). A loaded row inside the refreshed range that the
 * refresh no longer lists stopped matching the filters and goes; rows pushed out of the range by new
 * verifications stay (they used to vanish for good once more than 100 were loaded).
 */
export function refreshed<T extends { id: string }>(loaded: readonly T[], fresh: readonly T[], limit: number): T[] {
  const ids = new Set(fresh.map((v) => v.id));
  // A short answer reached the end of the list: it covers every loaded row.
  const end = fresh.length === limit ? fresh[fresh.length - 1]?.id : undefined;
  return [...fresh, ...loaded.filter((v) => !ids.has(v.id) && end !== undefined && v.id < end)];
}
