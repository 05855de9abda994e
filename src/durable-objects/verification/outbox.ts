import { markDispatched, markDispatchedStatements, undispatchedEvents, type EventRow } from "../../db/verifications";
import type { EventHints } from "../../events/publisher";
import { log } from "../../lib/log";
import type { ObjectContext } from "./context";

const RETRY_BASE_MS = 5_000;
const RETRY_MAX_MS = 10 * 60 * 1000;

/** Exponential backoff for the n-th retry (n ≥ 1) of a re-drive: 5 s doubling, at most 10 min. */
export function retryDelay(attempt: number): number {
  return Math.min(RETRY_BASE_MS * 2 ** (attempt - 1), RETRY_MAX_MS);
}

/**
 * Events published but not yet marked in D1 (DO storage key `published`) are marked by the next
 * commit's batch or, when no commit comes, by the alarm this long after the last publish.
 */
const MARK_DELAY_MS = 60_000;

/**
 * The verification's outbox. Events are written to D1 in the commit that makes them (the `events`
 * table) and published right after it. A published event is journaled in the object's own storage
 * (synchronous, no round trip) instead of marked in D1 at once: the next commit's batch or the alarm
 * marks it (`markPublished`), and a re-drive marks the journal before it reads what is still unsent,
 * so nothing is sent twice. A failed publish is re-driven by the alarm with backoff.
 */
export class Outbox {
  private readonly storage: DurableObjectStorage;

  constructor(private readonly cx: ObjectContext) {
    this.storage = cx.storage;
  }

  /** Event ids published but not yet marked dispatched in D1. */
  published(): string[] {
    return this.storage.kv.get<string[]>("published") ?? [];
  }

  /** The statements a commit's batch carries to mark the journal dispatched (`marked` for `dispatch`). */
  markStatements(d1: D1Database, now: number): { statements: D1PreparedStatement[]; marked: boolean } {
    const published = this.published();
    return { statements: markDispatchedStatements(d1, published, now), marked: published.length > 0 };
  }

  /**
   * Publishes freshly committed events; on failure the alarm re-drives them from D1. `marked`: the
   * commit just made marked the whole journal, so it is replaced here in one write after the publish
   * (each storage write separated by I/O is a commit of its own, which a capture's answer waits for);
   * until then it only names events already marked, which marking again ignores.
   */
  async dispatch(id: string, rows: EventRow[], marked: boolean, hints: EventHints): Promise<void> {
    const { kv } = this.storage;
    if (rows.length === 0) {
      if (marked) kv.delete("published");
      return;
    }
    try {
      await this.cx.publisher().publish(rows, hints);
      kv.put("published", [...(marked ? [] : this.published()), ...rows.map((r) => r.id)]);
      // Kept while set (the alarm clears it): a capture every few seconds does not move the alarm each time.
      if (kv.get<number>("mark_at") === undefined) kv.put("mark_at", this.cx.now() + MARK_DELAY_MS);
    } catch (err) {
      if (marked) kv.delete("published");
      log.error({ msg: "event publish failed; alarm will re-drive", verification_id: id, error: String(err) });
      await this.scheduleRedrive();
    }
  }

  /** Marks the journaled events dispatched in D1, then forgets them. */
  async markPublished(): Promise<void> {
    const published = this.published();
    if (published.length > 0) {
      await markDispatched(this.cx.db(), published, this.cx.now());
      this.storage.kv.delete("published");
    }
    this.storage.kv.delete("mark_at");
  }

  /** Marks the journal, then publishes whatever D1 still holds unsent (`hints`: from the record the object holds, if any). */
  async redrive(id: string, hints: () => EventHints): Promise<void> {
    await this.markPublished();
    const db = this.cx.db();
    const pending = await undispatchedEvents(db, id);
    if (pending.length === 0) {
      await this.storage.delete(["redrive_at", "redrive_attempts"]);
      return;
    }
    try {
      await this.cx.publisher().publish(pending, hints());
      await markDispatched(db, pending.map((r) => r.id), this.cx.now());
      await this.storage.delete(["redrive_at", "redrive_attempts"]);
    } catch (err) {
      log.error({ msg: "event re-drive failed", verification_id: id, error: String(err) });
      await this.scheduleRedrive();
    }
  }

  async scheduleRedrive(): Promise<void> {
    const attempts = ((await this.storage.get<number>("redrive_attempts")) ?? 0) + 1;
    await this.storage.put({ redrive_attempts: attempts, redrive_at: this.cx.now() + retryDelay(attempts) });
  }

  /** When the alarm must re-drive (a publish failed). */
  redriveDue(): Promise<number | undefined> {
    return this.storage.get<number>("redrive_at");
  }

  /** When the alarm must mark the journal, if it holds anything. */
  markDue(): number | undefined {
    return this.published().length > 0 ? this.storage.kv.get<number>("mark_at") : undefined;
  }
}
