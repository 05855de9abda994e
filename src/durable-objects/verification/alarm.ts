import type { VerificationRecord } from "../../db/verifications";
import { isTerminal } from "../../model/verification/state";
import type { Outbox } from "./outbox";
import { pendingRedaction } from "./redaction";

/*
 * One alarm per verification's object serves everything that must happen later: the expiry, the
 * outbox's re-drive and marks, the orphan sweep and a pending redaction. Each keeps its due time in
 * the object's storage; the alarm is armed for the earliest (`armAlarm`).
 */

/** Arms the alarm for whatever is due first (an open verification: its expiry). */
export async function scheduleAlarm(storage: DurableObjectStorage, outbox: Outbox, { row }: VerificationRecord): Promise<void> {
  await armAlarm(storage, [
    !isTerminal(row.status) && row.readyAt === null ? row.expiresAt : undefined,
    await outbox.redriveDue(),
    await sweepDue(storage),
    (await pendingRedaction(storage))?.retryAt,
    outbox.markDue(),
  ]);
}

/** Arms the alarm for the earliest of `dueTimes` (undefined: nothing due), or deletes it. */
export async function armAlarm(storage: DurableObjectStorage, dueTimes: (number | undefined)[]): Promise<void> {
  const candidates = dueTimes.filter((t): t is number => t !== undefined);
  if (candidates.length === 0) {
    await storage.deleteAlarm();
    return;
  }
  const next = Math.min(...candidates);
  const current = await storage.getAlarm();
  if (current !== next) await storage.setAlarm(next);
}

/** Moves the alarm earlier to `at`, never later. */
export async function alarmBy(storage: DurableObjectStorage, at: number): Promise<void> {
  const current = await storage.getAlarm();
  if (current === null || at < current) await storage.setAlarm(at);
}

/** When the orphan sweep is due (DO storage key `sweep_at`). */
export function sweepDue(storage: DurableObjectStorage): Promise<number | undefined> {
  return storage.get<number>("sweep_at");
}

/** Makes sure a sweep runs no later than `at`. */
export async function sweepBy(storage: DurableObjectStorage, at: number): Promise<void> {
  const current = await sweepDue(storage);
  if (current === undefined || at < current) await storage.put("sweep_at", at);
}
