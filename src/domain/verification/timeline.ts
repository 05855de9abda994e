import type { Db } from "../../db/client";
import { timelinePage, type EventRow } from "../../db/verifications";
import { signToken, verifyToken } from "../../lib/crypto";
import { ApiError } from "../../lib/errors";

const CURSOR_PURPOSE = "timeline-cursor";

/**
 * One page of a verification's timeline, oldest first (keyset on the event id, which is a ULID
 * made in commit order). The cursor names its verification: another's cursor is refused.
 */
export async function listTimeline(db: Db, secret: string, verificationId: string, page: { limit: number; cursor?: string }): Promise<{ rows: EventRow[]; nextCursor?: string }> {
  let after: string | undefined;
  if (page.cursor !== undefined) {
    const decoded = (await verifyToken(secret, CURSOR_PURPOSE, page.cursor)) as { v?: unknown; after?: unknown } | null;
    if (!decoded || decoded.v !== verificationId || typeof decoded.after !== "string") {
      throw ApiError.invalid({ cursor: "Invalid cursor: pass back the next_cursor of the previous page of this verification's timeline unchanged." });
    }
    after = decoded.after;
  }
  const fetched = await timelinePage(db, verificationId, { limit: page.limit + 1, ...(after !== undefined ? { after } : {}) });
  const rows = fetched.slice(0, page.limit);
  const last = rows[rows.length - 1];
  if (fetched.length > page.limit && last) return { rows, nextCursor: await signToken(secret, CURSOR_PURPOSE, { v: verificationId, after: last.id }) };
  return { rows };
}
