import canonicalize from "canonicalize";
import { sha256Hex, signToken, verifyToken } from "./crypto";
import { ApiError } from "./errors";

/**
 * A keyset cursor: where the next page starts, signed, and bound to the query that issued it (the
 * tenant and every filter). Passed with other filters, or by another tenant, it is refused (400)
 * rather than answering a page of a query nobody asked for.
 */
export interface CursorQuery {
  /** What the cursor pages through (its signature's purpose): one list's cursor is no other's. */
  purpose: string;
  tenantId: string;
  /** The request's filters; absent ones are `undefined` and count as absent. */
  filters?: Record<string, string | number | boolean | undefined>;
}

const INVALID = "Invalid cursor: pass back the next_cursor of the previous page unchanged.";
const OTHER_QUERY = "This cursor belongs to another query: send it with the same filters as the request whose page returned it.";

/** The query's fingerprint: 16 bytes of SHA-256 over its canonical JSON (a cursor stays short whatever the filters hold). */
async function fingerprint(query: CursorQuery): Promise<string> {
  const filters = Object.fromEntries(Object.entries(query.filters ?? {}).filter(([, value]) => value !== undefined));
  return (await sha256Hex(canonicalize({ tenant: query.tenantId, filters }) ?? "")).slice(0, 32);
}

export async function issueCursor(secret: string, query: CursorQuery, position: string): Promise<string> {
  return signToken(secret, query.purpose, { at: position, q: await fingerprint(query) });
}

/** The position a cursor names; 400 `invalid_request` on `cursor` if it is not one of this query's. */
export async function readCursor(secret: string, query: CursorQuery, cursor: string): Promise<string> {
  const decoded = (await verifyToken(secret, query.purpose, cursor)) as { at?: unknown; q?: unknown } | null;
  if (!decoded || typeof decoded.at !== "string" || typeof decoded.q !== "string") throw ApiError.invalid({ cursor: INVALID });
  if (decoded.q !== (await fingerprint(query))) throw ApiError.invalid({ cursor: OTHER_QUERY });
  return decoded.at;
}
