import { env } from "cloudflare:workers";
import { asc, eq } from "drizzle-orm";
import { answers, captures, events, uploads, verifications } from "../../src/db/schema";
import { verificationPrefix } from "../../src/storage/evidence";
import { db } from "./api";

/** Everything a verification has persisted, for "nothing was written" assertions. */
export async function persisted(verificationId: string) {
  const [row] = await db().select().from(verifications).where(eq(verifications.id, verificationId));
  const captureRows = await db().select().from(captures).where(eq(captures.verificationId, verificationId)).orderBy(asc(captures.seq));
  const answerRows = await db().select().from(answers).where(eq(answers.verificationId, verificationId));
  const eventRows = await db().select().from(events).where(eq(events.verificationId, verificationId)).orderBy(asc(events.id));
  const uploadRows = await db().select().from(uploads).where(eq(uploads.verificationId, verificationId));
  const objects = await env.EVIDENCE.list({ prefix: verificationPrefix(verificationId) });
  return {
    row: row!,
    captures: captureRows,
    answers: answerRows,
    events: eventRows,
    uploads: uploadRows,
    objectKeys: objects.objects.map((o) => o.key).sort(),
  };
}

/** The parts that must not change when a request is refused. */
export async function footprint(verificationId: string) {
  const p = await persisted(verificationId);
  return {
    version: p.row.version,
    status: p.row.status,
    captures_count: p.row.capturesCount,
    captures: p.captures.length,
    answers: p.answers.map((a) => [a.stepKey, a.value]),
    events: p.events.length,
    objects: p.objectKeys,
  };
}
