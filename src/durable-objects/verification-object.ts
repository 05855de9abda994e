import { DurableObject } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { createDb, type Db } from "../db/client";
import { insertRow, toStatement, updateWhere } from "../db/statements";
import { answers, captures, events, uploads, verifications } from "../db/schema";
import {
  eventRow,
  isVersionConflict,
  loadRecord,
  markDispatched,
  markDispatchedStatements,
  recordFromResults,
  recordStatements,
  toState,
  undispatchedEvents,
  type CaptureRow,
  type EventRow,
  type VerificationRecord,
  type VerificationRow,
} from "../db/verifications";
import { settings } from "../env";
import { captureFlowRecord, type CaptureFlowRecord } from "../domain/verification/present";
import { computeSealHash } from "../domain/verification/seal";
import type { VerificationState } from "../domain/verification/state";
import { isTerminal } from "../domain/verification/state";
import * as machine from "../domain/verification/transitions";
import type { ProgressKind, ReviewCommand, Transition } from "../domain/verification/transitions";
import { QUIET_AFTER_MS, redactedColumns, redactionPlan, scrubAgain } from "../domain/verification/redaction";
import { eventHints, queuePublisher, type EventHints, type EventPublisher } from "../events/publisher";
import { errorResult, type ErrorResult } from "../lib/errors";
import { VERIFICATION_WRITE_LIMIT, WriteWindow } from "../domain/public-limits";
import type { MediaType } from "../schemas/steps";
import { belongsTo, deleteEvidence, listEvidence, purgeVerification, thumbnailKeyFor } from "../storage/evidence";
import { CAPTURE_WINDOW_MS, planSweep, SWEEP_GRACE_MS } from "../domain/capture/orphans";
import { checkSlot, findUpload, insertUpload, recordUploadDigest, type UploadDigest, type UploadMint, type UploadSlot } from "../domain/capture/uploads";
import { log } from "../lib/log";

export type MutationResult = { ok: true; record: VerificationRecord; replayed?: boolean } | ErrorResult;
/** What the capture flow's writes answer with: the end user's view of the record (CaptureFlowRecord). */
export type CaptureFlowResult = { ok: true; record: CaptureFlowRecord; replayed?: boolean } | ErrorResult;

export interface CaptureInput {
  captureId: string;
  stepKey?: string;
  imageKey: string;
  mediaType: MediaType;
  sizeBytes: number;
  sha256: string;
  surface?: string;
  clientCapturedAt?: number;
  location?: unknown;
  forensicBufferKey?: string;
  attestation?: unknown;
  /** direct uploads this capture inspected first: recorded in the capture's commit */
  uploads?: UploadDigest[];
}

/** What a decision asks the shell to write besides the transition itself. */
interface Plan {
  transition: Transition;
  columns?: Partial<typeof verifications.$inferInsert>;
  /** drizzle queries, or prepared D1 statements (db/statements.ts) on the hot paths */
  statements?: (db: Db, d1: D1Database) => (BatchItem<"sqlite"> | D1PreparedStatement)[];
  /** Nothing to write: answer with the current record. */
  noop?: boolean;
  /**
   * The record after the commit, computed instead of read back: `row` is the record's row with the
   * update applied. Exact because every write to a verification's rows moves its version (the CAS
   * would have failed otherwise), so a commit that passed started from exactly `record`.
   */
  after?: (record: VerificationRecord, row: VerificationRow) => VerificationRecord;
}

const REDRIVE_BASE_MS = 5_000;
const REDRIVE_MAX_MS = 10 * 60 * 1000;
/**
 * Events published but not yet marked in D1 (DO storage key `published`) are marked by the next
 * commit's batch or, when no commit comes, by the alarm this long after the last publish.
 */
const MARK_DELAY_MS = 60_000;
/** After a redaction, the prefix is emptied once more when nothing can still be writing to it. */
const FINAL_SWEEP_DELAY_MS = QUIET_AFTER_MS;

/** Deletes every object of a verification from the evidence bucket. */
export interface EvidencePurger {
  purge(verificationId: string): Promise<unknown>;
}

/** A redaction accepted but not finished (DO storage key `redaction`): the alarm re-drives it. */
interface PendingRedaction {
  by: string;
  attempts: number;
  retryAt: number;
}

/**
 * One instance per verification: the single writer of its D1 rows once the Worker has written the
 * first (service.ts `createVerification`; `arm` takes charge). It runs mutations one at a time
 * (a promise chain, because D1/R2/queue I/O opens the input gate), commits each as one D1 batch whose
 * first statement is a version compare-and-swap (the `verifications_version_cas` trigger), then
 * publishes the outbox events of that batch; its alarm expires it, re-drives unsent events and sweeps
 * orphaned uploads (domain/capture/orphans.ts). All rules live in domain/verification/transitions.ts.
 */
export class VerificationObject extends DurableObject<Env> {
  #tail: Promise<unknown> = Promise.resolve();
  /**
   * The record as the last commit left it (read back in that commit's batch). The object is the
   * only writer, so the next decision starts from it without a read; a commit that finds the
   * version moved anyway (the CAS trigger) drops it and reads again.
   */
  #record: VerificationRecord | null = null;
  /** This instance made sure the alarm is armed (`#armed`). */
  #checkedAlarm = false;
  /** The capture flow's writes into this verification in the current minute (`#admit`). */
  #writes = new WriteWindow(VERIFICATION_WRITE_LIMIT);
  /** Replaceable from tests (runInDurableObject) to simulate a failing queue. */
  publisher: EventPublisher;
  /** Replaceable from tests to simulate a failing bucket. */
  purger: EvidencePurger;
  clock: () => number = () => Date.now();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.publisher = queuePublisher(env.EVENTS_QUEUE);
    this.purger = { purge: (verificationId) => purgeVerification(env.EVIDENCE, verificationId) };
  }

  get #db(): Db {
    return createDb(this.env.DB);
  }

  /** Runs `fn` after every earlier call finished, whatever it awaits in between. */
  #exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#tail.then(fn, fn);
    this.#tail = run.catch(() => undefined);
    return run;
  }

  /**
   * Takes charge of a verification the Worker created (domain/verification/service.ts): arms the
   * alarm for its expiry. Called by the events consumer on `verification.created`, by the Worker when
   * the created event could not be published (`redrive`), and by the minutely sweep; idempotent.
   * Every capture-flow call arms it too, whichever comes first.
   */
  async arm(id: string, options: { redrive?: boolean } = {}): Promise<void> {
    await this.#exclusive(async () => {
      await this.#takeCharge(id);
      // A re-drive already pending keeps its backoff (the sweep asks again every minute).
      if (!options.redrive || (await this.ctx.storage.get("redrive_at")) !== undefined) return;
      const record = this.#record?.row.id === id ? this.#record : await loadRecord(this.#db, id);
      if (!record) return;
      await this.#scheduleRedrive();
      await this.#schedule(record);
    });
  }

  /** Every entry point that acts on a verification: remember its id, make sure its alarm is armed. */
  async #takeCharge(id: string): Promise<void> {
    this.#remember(id);
    await this.#armed(id);
  }

  /** The id the alarm acts on, written once (the synchronous KV shares the storage the alarm reads it from). */
  #remember(id: string): void {
    if (this.ctx.storage.kv.get<string>("verification_id") !== id) this.ctx.storage.kv.put("verification_id", id);
  }

  /**
   * The first call an instance serves arms the alarm if nothing did (the object is not created with
   * the verification, see `arm`); later calls of the same instance skip the check. The record read
   * for it is not kept: the mutation that follows reads its own (see `#apply`'s retry rule).
   */
  async #armed(id: string): Promise<void> {
    if (this.#checkedAlarm) return;
    if ((await this.ctx.storage.getAlarm()) === null) {
      const record = this.#record?.row.id === id ? this.#record : await loadRecord(this.#db, id);
      if (record) await this.#schedule(record);
    }
    this.#checkedAlarm = true;
  }

  async addCapture(id: string, input: CaptureInput): Promise<CaptureFlowResult> {
    const refused = this.#admit();
    if (refused) return refused;
    return forCaptureFlow(await this.#mutate(id, (state, record, now) => {
      const existing = record.captures.find((c) => c.imageKey === input.imageKey);
      if (existing) return { transition: noChange(state), noop: true, replayed: true };
      const decision = machine.acceptCapture(state, input, now);
      if (!decision.ok) return decision;
      const row: CaptureRow = {
        id: input.captureId,
        verificationId: id,
        tenantId: state.tenantId,
        stepKey: decision.step.key,
        stepType: decision.step.type,
        seq: decision.seq,
        imageKey: input.imageKey,
        contentType: input.mediaType,
        sizeBytes: input.sizeBytes,
        sha256: input.sha256,
        surface: input.surface ?? null,
        clientCapturedAt: input.clientCapturedAt ?? null,
        location: input.location ?? null,
        forensicBufferKey: input.forensicBufferKey ?? null,
        attestation: input.attestation ?? null,
        createdAt: now,
      };
      return {
        transition: decision.transition,
        columns: { capturesCount: decision.seq },
        statements: (_db, d1) => [insertRow(d1, captures, row), ...(input.uploads ?? []).map((u) => recordUploadDigest(d1, u))],
        // Captures are appended in seq order: the record after is known without reading it back.
        after: (before, updated) => ({ ...before, row: updated, captures: [...before.captures, row] }),
      };
    }));
  }

  async answer(id: string, stepKey: string, value: string): Promise<CaptureFlowResult> {
    const refused = this.#admit();
    if (refused) return refused;
    return forCaptureFlow(await this.#mutate(id, async (state, _record, now) => {
      const decision = machine.recordAnswer(state, stepKey, value, now);
      if (!decision.ok) return decision;
      const sealHash = await computeSealHash({ ...state, answers: { ...state.answers, [stepKey]: { value, answeredAt: now } } });
      return {
        transition: decision.transition,
        columns: { sealHash },
        statements: (db) => [
          db
            .insert(answers)
            .values({ verificationId: id, stepKey, value, answeredAt: now })
            .onConflictDoUpdate({ target: [answers.verificationId, answers.stepKey], set: { value, answeredAt: now } }),
        ],
      };
    }));
  }

  async submit(id: string): Promise<CaptureFlowResult> {
    const refused = this.#admit();
    if (refused) return refused;
    return forCaptureFlow(await this.#mutate(id, (state, _record, now) => {
      const decision = machine.submit(state, now);
      if (!decision.ok) return decision;
      return { transition: decision.transition, noop: decision.alreadySubmitted };
    }));
  }

  async progress(id: string, kind: ProgressKind, snapshot: Record<string, unknown>): Promise<CaptureFlowResult> {
    const refused = this.#admit();
    if (refused) return refused;
    return forCaptureFlow(await this.#mutate(id, (state, _record, now) => {
      const decision = machine.reportProgress(state, kind, now);
      if (!decision.ok) return decision;
      return { transition: decision.transition, columns: { progress: { ...snapshot, received_at: new Date(now).toISOString() } } };
    }));
  }

  /** Written by the analysis worker: the verdict and the independent checks, then `completed`. */
  async complete(id: string, outcome: { verdict: unknown; objectMatch?: unknown; locationMatch?: unknown; condition?: unknown }): Promise<MutationResult> {
    return this.#mutate(id, (state, _record, now) => {
      const label = (outcome.verdict as { label?: string } | null)?.label;
      const decision = machine.complete(state, now, label ? { label } : {});
      if (!decision.ok) return decision;
      return {
        transition: decision.transition,
        columns: {
          verdict: outcome.verdict,
          objectMatch: outcome.objectMatch ?? null,
          locationMatch: outcome.locationMatch ?? null,
          condition: outcome.condition ?? null,
        },
      };
    });
  }

  async fail(id: string, reason: string): Promise<MutationResult> {
    return this.#mutate(id, (state) => {
      const decision = machine.fail(state, reason);
      if (!decision.ok) return decision;
      return { transition: decision.transition, columns: { failureReason: reason } };
    });
  }

  async finalize(id: string, narrative: string): Promise<MutationResult> {
    return this.#mutate(id, (state, _record, now) => {
      const decision = machine.finalize(state, narrative, now);
      if (!decision.ok) return decision;
      return { transition: decision.transition, columns: { narrative } };
    });
  }

  /**
   * The case analysis result, written once after finalize (synchronously or by the queue); never onto
   * a redacted verification (a run that read the narrative before the redaction ends here).
   */
  async recordCaseAnalysis(id: string, caseAnalysis: unknown): Promise<MutationResult> {
    return this.#mutate(id, (state, record) => {
      if (state.redactedAt !== null) return errorResult("redacted", "This verification was redacted.");
      if (state.finalizedAt === null) return errorResult("invalid_state", "The case was not finalized.");
      if (record.row.caseAnalysis) return { transition: noChange(state), noop: true };
      return { transition: { status: state.status, patch: {}, events: [{ name: "verification.case.analyzed" }] }, columns: { caseAnalysis } };
    });
  }

  /**
   * Mints an upload into this verification (a capture-flow write, counted like the others): inserts
   * its row unless the verification holds its cap of open uploads (domain/capture/uploads.ts), keeps
   * its slot for the capture (`uploadFor`), and makes sure a sweep runs by the time its bytes, if
   * never captured, are an orphan, even while the verification stays open.
   */
  async mintUpload(id: string, mint: UploadMint): Promise<{ ok: true } | ErrorResult> {
    const refused = this.#admit();
    if (refused) return refused;
    return this.#exclusive(async () => {
      await this.#takeCharge(id);
      const inserted = await insertUpload(this.#db, mint);
      if (!inserted.ok) return inserted;
      // A presigned PUT reaches no Worker route, so only the capture learns its digest: kept here for it.
      if (mint.direct) this.ctx.storage.kv.put<UploadSlot>(SLOT_PREFIX + mint.slot.objectKey, mint.slot);
      const orphanAt = mint.slot.expiresAt + CAPTURE_WINDOW_MS;
      await this.#sweepBy(orphanAt);
      const current = await this.ctx.storage.getAlarm();
      if (current === null || orphanAt < current) await this.ctx.storage.setAlarm(orphanAt);
      return inserted;
    });
  }

  /**
   * The upload an `image_key` names, for a capture about to read its bytes: 404 without the
   * verification, 400/410 from `checkSlot`. A direct upload is answered from what this object keeps
   * (the record, the slots it minted, its captures' digests), so its capture reads nothing in D1
   * before the bytes; any other (proxied by the Worker's upload route, which records the digest on
   * the row, or minted before the object kept slots) is read from D1. Counts and writes nothing: the
   * capture's `addCapture` counts the write, and a guessed id leaves no trace.
   */
  async uploadFor(id: string, objectKey: string): Promise<{ ok: true; upload: UploadSlot } | ErrorResult> {
    const record = this.#record?.row.id === id ? this.#record : await loadRecord(this.#db, id);
    if (!record) return errorResult("not_found", "No such verification.");
    // Nothing cached yet: keep it for the capture that follows (a stale copy only costs #apply a retry).
    this.#record ??= record;
    const use = { verificationId: id, kind: "image", field: "image_key", now: this.clock() } as const;
    if (!belongsTo(objectKey, id)) return checkSlot(null, use)!;
    const kept = this.ctx.storage.kv.get<UploadSlot>(SLOT_PREFIX + objectKey);
    const slot = kept ? withDigest(kept, record) : await findUpload(this.#db, objectKey);
    return checkSlot(slot, use) ?? { ok: true, upload: slot! };
  }

  /**
   * Counts a capture-flow write into this verification (domain/public-limits.ts), when it arrives and
   * before it queues behind the writes in flight: a flood is refused at once, deciding and writing
   * nothing. Only the capture flow's doors call the methods that count (the object is their single
   * writer, so every one of them reaches it); the analysis, the operator and the alarm do not.
   */
  #admit(): ErrorResult | undefined {
    const retryAfter = this.#writes.hit(this.clock());
    if (retryAfter === undefined) return undefined;
    return { ...errorResult("too_many_requests", VERIFICATION_WRITE_LIMIT.message), retryAfter };
  }

  /** An operator's decision beside the verdict (which never changes); on the timeline and a webhook. */
  async review(id: string, cmd: ReviewCommand): Promise<MutationResult> {
    return this.#mutate(id, (state, _record, now) => {
      const decision = machine.review(state, cmd, now);
      if (!decision.ok) return decision;
      return { transition: decision.transition, columns: { review: decision.review } };
    });
  }

  /**
   * Irreversible and idempotent. The intent is stored (and the alarm armed) before anything else,
   * then: one D1 batch writes the tombstone, clears the other tables and records
   * `verification.redacted`; then every R2 object under the verification's prefix is deleted. A
   * crash or a failure anywhere is re-driven by the alarm until both are done.
   */
  async redact(id: string, by: string): Promise<MutationResult> {
    return this.#exclusive(async () => {
      this.#remember(id);
      const pending = (await this.ctx.storage.get<PendingRedaction>("redaction")) ?? { by, attempts: 0, retryAt: 0 };
      await this.#armRedactionRetry(pending);
      return this.#completeRedaction(id, pending);
    });
  }

  async #armRedactionRetry(pending: PendingRedaction): Promise<void> {
    const retryAt = this.clock() + Math.min(REDRIVE_BASE_MS * 2 ** pending.attempts, REDRIVE_MAX_MS);
    await this.ctx.storage.put("redaction", { ...pending, attempts: pending.attempts + 1, retryAt });
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > retryAt) await this.ctx.storage.setAlarm(retryAt);
  }

  /** The D1 step (once) then the R2 step; the caller holds the lock and has armed the retry. */
  async #completeRedaction(id: string, pending: PendingRedaction): Promise<MutationResult> {
    const baseUrl = settings(this.env).baseUrl;
    let alreadyRedacted = false;
    const result = await this.#apply(id, async (state, record, now) => {
      const decision = machine.redact(state, pending.by);
      if (!decision.ok) return decision;
      alreadyRedacted = decision.alreadyRedacted;
      if (decision.alreadyRedacted) return { transition: decision.transition, noop: true };
      return {
        transition: decision.transition,
        columns: redactedColumns(record.row, now),
        statements: await redactionPlan(this.#db, record, now, baseUrl),
      };
    });
    if (!result.ok) {
      // Nothing to redact any more; any other refusal (a lost race) is retried by the alarm.
      if (result.error.code === "not_found") await this.ctx.storage.delete("redaction");
      return result;
    }
    const record = result.record as VerificationRecord;
    // Redacted before, maybe in bulk by the retention run: send any event that write left unsent.
    if (alreadyRedacted) await this.#redrive(id);
    try {
      await this.purger.purge(id);
    } catch (err) {
      // The tombstone is committed; the alarm empties the prefix on its next try.
      log.error({ msg: "evidence purge failed; alarm will re-drive", verification_id: id, error: String(err) });
      await this.#schedule(record);
      return result;
    }
    await this.ctx.storage.delete("redaction");
    const finalSweepAt = (record.row.redactedAt ?? 0) + FINAL_SWEEP_DELAY_MS;
    if (finalSweepAt > this.clock()) await this.ctx.storage.put({ sweep_at: finalSweepAt, sweep_scheduled: true });
    else await scrubAgain(this.#db, record, baseUrl);
    await this.#schedule(record);
    return result;
  }

  override async alarm(): Promise<void> {
    await this.#exclusive(async () => {
      const id = await this.ctx.storage.get<string>("verification_id");
      if (!id) return;
      const db = this.#db;
      let record = await loadRecord(db, id);
      this.#record = record;
      if (!record) {
        await this.ctx.storage.deleteAll();
        return;
      }
      const now = this.clock();
      const expiry = machine.expire(toState(record), now);
      if (expiry.ok) {
        const result = await this.#apply(id, (state, _r, at) => {
          const decision = machine.expire(state, at);
          return decision.ok ? { transition: decision.transition } : decision;
        });
        if (result.ok) record = result.record;
      }
      await this.#redrive(id);
      const pending = await this.ctx.storage.get<PendingRedaction>("redaction");
      if (pending) {
        try {
          await this.#armRedactionRetry(pending);
          const result = await this.#completeRedaction(id, pending);
          if (result.ok) record = result.record as VerificationRecord;
        } catch (err) {
          log.error({ msg: "redaction re-drive failed; will retry", verification_id: id, error: String(err) });
        }
      }
      const sweepAt = await this.ctx.storage.get<number>("sweep_at");
      if (sweepAt !== undefined && sweepAt <= now) {
        if (record.row.redactedAt !== null) {
          // Redacted: nothing is referenced any more, whatever its age.
          await this.purger.purge(id);
          await scrubAgain(this.#db, record, settings(this.env).baseUrl);
          record = await this.#reapplyRedactedColumns(id, record);
          this.#forgetSlots(Infinity);
          await this.ctx.storage.delete("sweep_at");
        } else {
          const nextAt = await this.#sweep(id, record, now);
          if (nextAt === null) await this.ctx.storage.delete("sweep_at");
          else await this.ctx.storage.put("sweep_at", nextAt);
        }
      }
      await this.#schedule(record);
    });
  }

  /**
   * The final sweep's share of the row itself: the tombstone's columns again (`redactedColumns` at
   * the original `redacted_at`), written only when a late writer put something back.
   */
  async #reapplyRedactedColumns(id: string, record: VerificationRecord): Promise<VerificationRecord> {
    const tombstone = redactedColumns(record.row, record.row.redactedAt!);
    const drifted = (Object.keys(tombstone) as (keyof typeof tombstone)[]).some((k) => JSON.stringify(record.row[k]) !== JSON.stringify(tombstone[k]));
    if (!drifted) return record;
    const result = await this.#apply(id, (state) => ({ transition: noChange(state), columns: tombstone }));
    return result.ok ? result.record : record;
  }

  /** Deletes the verification's orphaned objects; returns when to sweep again (or null). */
  async #sweep(id: string, record: VerificationRecord, now: number): Promise<number | null> {
    const referenced = new Set<string>();
    for (const c of record.captures) {
      referenced.add(c.imageKey);
      referenced.add(thumbnailKeyFor(id, c.id));
      if (c.forensicBufferKey) referenced.add(c.forensicBufferKey);
    }
    const [objects, minted] = await Promise.all([
      listEvidence(this.env.EVIDENCE, id),
      this.#db.select({ objectKey: uploads.objectKey, expiresAt: uploads.expiresAt }).from(uploads).where(eq(uploads.verificationId, id)),
    ]);
    const plan = planSweep({ now, terminal: isTerminal(record.row.status), objects, referenced, uploads: minted });
    await deleteEvidence(this.env.EVIDENCE, plan.remove);
    this.#forgetSlots(now);
    return plan.nextAt;
  }

  /** Slots no capture may take any more (`checkSlot` refuses them as expired; `Infinity`: all of them). */
  #forgetSlots(now: number): void {
    for (const [key, slot] of this.ctx.storage.kv.list<UploadSlot>({ prefix: SLOT_PREFIX })) {
      if (now >= slot.expiresAt + CAPTURE_WINDOW_MS) this.ctx.storage.kv.delete(key);
    }
  }

  /** Makes sure a sweep runs no later than `at`. */
  async #sweepBy(at: number): Promise<void> {
    const current = await this.ctx.storage.get<number>("sweep_at");
    if (current === undefined || at < current) await this.ctx.storage.put("sweep_at", at);
  }

  #mutate(id: string, decide: Decide): Promise<MutationResult> {
    return this.#exclusive(async () => {
      await this.#takeCharge(id);
      return this.#apply(id, decide);
    });
  }

  /** Load → decide → one D1 batch (CAS first) → publish events → re-arm the alarm. Caller holds the lock. */
  async #apply(id: string, decide: Decide): Promise<MutationResult> {
    const db = this.#db;
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const cached = this.#record?.row.id === id;
      const record = cached ? this.#record : await loadRecord(db, id);
      if (!record) return errorResult("not_found", "No such verification.");
      this.#record = record;
      const now = this.clock();
      const state = toState(record);
      const plan = await decide(state, record, now);
      if ("ok" in plan) return plan;
      if (plan.noop) return { ok: true, record, ...(plan.replayed ? { replayed: true } : {}) };
      const { transition } = plan;
      const eventRows = transition.events.map((e) => eventRow(id, state.tenantId, e, now));
      // Prepared D1 statements, not drizzle queries: this is every capture's commit (db/statements.ts).
      const d1 = this.env.DB;
      // First the compare-and-swap on the version read (trigger `verifications_version_cas` aborts the batch).
      const set = { ...plan.columns, ...transition.patch, status: transition.status, version: state.version + 1, updatedAt: now };
      const batch: D1PreparedStatement[] = [
        updateWhere(d1, verifications, set, { key: "id", value: id }),
        ...(plan.statements?.(db, d1) ?? []).map((item) => toStatement(d1, item)),
        ...eventRows.map((row) => insertRow(d1, events, row)),
      ];
      // Events earlier commits published are marked in this one (see #dispatch).
      const published = this.#published();
      batch.push(...markDispatchedStatements(d1, published, now));
      // The record is read back in the same batch (one round trip commits and reloads), unless the plan knows it.
      const readBack = plan.after ? [] : recordStatements(d1, id);
      let results: D1Result[];
      try {
        results = await d1.batch([...batch, ...readBack]);
      } catch (err) {
        // A stale cache (the row moved or went) is retried from a fresh read, like a lost race.
        this.#record = null;
        if (isVersionConflict(err) || cached) continue;
        throw err;
      }
      const after = plan.after
        ? plan.after(record, { ...record.row, ...Object.fromEntries(Object.entries(set).filter(([, v]) => v !== undefined)) } as VerificationRow)
        : recordFromResults(results.slice(-readBack.length));
      this.#record = after;
      if (!after) throw new Error("verification vanished after commit");
      await this.#dispatch(id, eventRows, published.length > 0, eventHints(after));
      // Every change that leaves it over: what was uploaded and never captured goes, once in-flight uploads landed.
      if (isTerminal(after.row.status)) await this.#sweepBy(now + SWEEP_GRACE_MS);
      await this.#schedule(after);
      return { ok: true, record: after };
    }
    return errorResult("invalid_state", "The verification changed concurrently; retry the request.");
  }

  /**
   * Publishes freshly committed events; on failure the alarm re-drives them from the outbox. A
   * published event is journaled in this object's own storage (synchronous, no round trip) instead
   * of marked in D1 at once: the next commit's batch or the alarm marks it (#markPublished), and a
   * re-drive marks the journal before it reads what is still unsent, so nothing is sent twice.
   * `marked`: the commit just made marked the whole journal, so it is replaced here in one write
   * after the publish (each storage write separated by I/O is a commit of its own, which a capture's
   * answer waits for); until then it only names events already marked, which marking again ignores.
   */
  async #dispatch(id: string, rows: EventRow[], marked: boolean, hints: EventHints): Promise<void> {
    if (rows.length === 0) {
      if (marked) this.ctx.storage.kv.delete("published");
      return;
    }
    try {
      await this.publisher.publish(rows, hints);
      this.ctx.storage.kv.put("published", [...(marked ? [] : this.#published()), ...rows.map((r) => r.id)]);
      // Kept while set (the alarm clears it): a capture every few seconds does not move the alarm each time.
      if (this.ctx.storage.kv.get<number>("mark_at") === undefined) this.ctx.storage.kv.put("mark_at", this.clock() + MARK_DELAY_MS);
    } catch (err) {
      if (marked) this.ctx.storage.kv.delete("published");
      log.error({ msg: "event publish failed; alarm will re-drive", verification_id: id, error: String(err) });
      await this.#scheduleRedrive();
    }
  }

  /** Event ids published but not yet marked dispatched in D1. */
  #published(): string[] {
    return this.ctx.storage.kv.get<string[]>("published") ?? [];
  }

  /** Marks the journaled events dispatched in D1, then forgets them. */
  async #markPublished(): Promise<void> {
    const published = this.#published();
    if (published.length > 0) {
      await markDispatched(this.#db, published, this.clock());
      this.ctx.storage.kv.delete("published");
    }
    this.ctx.storage.kv.delete("mark_at");
  }

  async #redrive(id: string): Promise<void> {
    await this.#markPublished();
    const pending = await undispatchedEvents(this.#db, id);
    if (pending.length === 0) {
      await this.ctx.storage.delete(["redrive_at", "redrive_attempts"]);
      return;
    }
    try {
      // The hints from the record this object holds, if it holds one (a fresh instance re-driving: none).
      await this.publisher.publish(pending, this.#record?.row.id === id ? eventHints(this.#record) : {});
      await markDispatched(this.#db, pending.map((r) => r.id), this.clock());
      await this.ctx.storage.delete(["redrive_at", "redrive_attempts"]);
    } catch (err) {
      log.error({ msg: "event re-drive failed", verification_id: id, error: String(err) });
      await this.#scheduleRedrive();
    }
  }

  async #scheduleRedrive(): Promise<void> {
    const attempts = ((await this.ctx.storage.get<number>("redrive_attempts")) ?? 0) + 1;
    const delay = Math.min(REDRIVE_BASE_MS * 2 ** (attempts - 1), REDRIVE_MAX_MS);
    await this.ctx.storage.put({ redrive_attempts: attempts, redrive_at: this.clock() + delay });
  }

  /** One alarm serves expiry, outbox re-drive and the orphan sweep: arm it for the earliest. */
  async #schedule(record: VerificationRecord): Promise<void> {
    const { row } = record;
    const candidates: number[] = [];
    if (!isTerminal(row.status) && row.readyAt === null) candidates.push(row.expiresAt);
    const redriveAt = await this.ctx.storage.get<number>("redrive_at");
    if (redriveAt !== undefined) candidates.push(redriveAt);
    const sweepAt = await this.ctx.storage.get<number>("sweep_at");
    if (sweepAt !== undefined) candidates.push(sweepAt);
    const redaction = await this.ctx.storage.get<PendingRedaction>("redaction");
    if (redaction !== undefined) candidates.push(redaction.retryAt);
    const markAt = this.#published().length > 0 ? this.ctx.storage.kv.get<number>("mark_at") : undefined;
    if (markAt !== undefined) candidates.push(markAt);
    if (candidates.length === 0) {
      await this.ctx.storage.deleteAlarm();
      return;
    }
    const next = Math.min(...candidates);
    const current = await this.ctx.storage.getAlarm();
    if (current !== next) await this.ctx.storage.setAlarm(next);
  }
}

type Decide = (
  state: VerificationState,
  record: VerificationRecord,
  now: number,
) => (Plan & { replayed?: boolean }) | ErrorResult | Promise<(Plan & { replayed?: boolean }) | ErrorResult>;

/** A capture-flow write answers with what the end user's view shows, not the whole record it keeps. */
function forCaptureFlow(result: MutationResult): CaptureFlowResult {
  return result.ok ? { ...result, record: captureFlowRecord(result.record) } : result;
}

function noChange(state: VerificationState): Transition {
  return { status: state.status, patch: {}, events: [] };
}

/** DO storage key prefix of the direct uploads' slots this object minted (`mintUpload`), by object key. */
const SLOT_PREFIX = "upload:";

/** A kept slot as the capture that took its bytes left it: their digest, so a retry reads nothing. */
function withDigest(slot: UploadSlot, record: VerificationRecord): UploadSlot {
  const capture = record.captures.find((c) => c.imageKey === slot.objectKey);
  if (!capture) return slot;
  return { ...slot, status: "uploaded", sizeBytes: capture.sizeBytes, sha256: capture.sha256, sniffedType: capture.contentType };
}
