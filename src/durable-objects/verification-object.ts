import { DurableObject } from "cloudflare:workers";
import { createDb, type Db } from "../db/client";
import { findUpload, findUploadById } from "../db/uploads";
import { eventRow, isVersionConflict, loadRecord, type VerificationRecord } from "../db/verifications";
import { eventHints, queuePublisher, type EventPublisher } from "../events/publisher";
import { errorResult, type ErrorResult } from "../lib/errors";
import type { CaptureInput } from "../model/verification/capture";
import { SWEEP_GRACE_MS } from "../model/verification/orphan-sweep";
import { captureFlowRecord } from "../model/verification/present";
import { toState } from "../model/verification/record";
import { isTerminal } from "../model/verification/state";
import * as machine from "../model/verification/transitions";
import type { ProgressKind, ReviewCommand } from "../model/verification/transitions";
import { checkSlot, keptSlotOf, planUpload, withDigest, type StoredDigest, type UploadFit, type UploadRequest, type UploadSlot } from "../model/verification/upload-slots";
import { VERIFICATION_WRITE_LIMIT, WriteWindow } from "../model/verification/write-window";
import { belongsTo, purgeVerification } from "../storage/evidence";
import { scheduleAlarm, sweepBy, sweepDue } from "./verification/alarm";
import type { AuditEntry } from "../model/audit/entry";
import { commitBatch, withAudit, type Decide } from "./verification/commit";
import { runSweep } from "./verification/orphan-sweep";
import { Outbox } from "./verification/outbox";
import * as plans from "./verification/plans";
import type { CaptureFlowResult, EvidencePurger, MutationResult, ObjectContext } from "./verification/context";
import { armRedactionRetry, completeRedaction, pendingRedaction, redriveRedaction, type RedactionSteps } from "./verification/redaction";
import { claimKept, deleteUnheldUpload, finishClaim, mintSlot, releaseClaim, UploadSlots } from "./verification/upload-slots";

/**
 * One instance per verification: the single writer of its D1 rows once the Worker has written the
 * first (domain/verification/service.ts `createVerification`; `arm` takes charge). It runs commands one
 * at a time (a promise chain, because D1/R2/queue I/O opens the input gate): load the record, ask the
 * model (model/verification/transitions.ts) to decide, commit as one D1 batch whose first statement is
 * a version compare-and-swap (verification/commit.ts), publish the batch's events (verification/outbox.ts).
 * Its alarm (verification/alarm.ts) expires it, re-drives the outbox and a pending redaction
 * (verification/redaction.ts), and sweeps orphaned uploads (verification/orphan-sweep.ts).
 */
export class VerificationObject extends DurableObject<Env> {
  #tail: Promise<unknown> = Promise.resolve();
  /** The record as the last commit left it: the only writer decides from it without a read (a moved version: read again). */
  #record: VerificationRecord | null = null;
  /** This instance made sure the alarm is armed (`#takeCharge`). */
  #checkedAlarm = false;
  /** The capture flow's writes into this verification in the current minute (`#admit`). */
  #writes = new WriteWindow(VERIFICATION_WRITE_LIMIT);
  #cx: ObjectContext;
  #outbox: Outbox;
  #slots: UploadSlots;
  /** Replaceable from tests (runInDurableObject) to simulate a failing queue. */
  publisher: EventPublisher;
  /** Replaceable from tests to simulate a failing bucket. */
  purger: EvidencePurger;
  clock: () => number = () => Date.now();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.publisher = queuePublisher(env.EVENTS_QUEUE);
    this.purger = { purge: (verificationId) => purgeVerification(env.EVIDENCE, verificationId) };
    this.#cx = { storage: ctx.storage, env, db: () => this.#db, now: () => this.clock(), publisher: () => this.publisher, purger: () => this.purger };
    this.#outbox = new Outbox(this.#cx);
    this.#slots = new UploadSlots(ctx.storage.kv);
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

  /** The record this object holds, if it is this verification's (see `#record`). */
  #cached(id: string): VerificationRecord | null {
    return this.#record?.row.id === id ? this.#record : null;
  }

  /**
   * Takes charge of a verification the Worker created (arms the alarm for its expiry): on `verification.created`,
   * from the Worker when that event could not be published (`redrive`), and from the minutely sweep; idempotent.
   */
  async arm(id: string, options: { redrive?: boolean } = {}): Promise<void> {
    await this.#exclusive(async () => {
      await this.#takeCharge(id);
      // A re-drive already pending keeps its backoff (the sweep asks again every minute).
      if (!options.redrive || (await this.#outbox.redriveDue()) !== undefined) return;
      const record = this.#cached(id) ?? (await loadRecord(this.#db, id));
      if (!record) return;
      await this.#outbox.scheduleRedrive();
      await this.#schedule(record);
    });
  }

  /**
   * Every entry point that acts on a verification: remember its id (for the alarm) and, on the first
   * call an instance serves, arm the alarm if nothing did. The record read for it is not kept.
   */
  async #takeCharge(id: string): Promise<void> {
    this.#remember(id);
    if (this.#checkedAlarm) return;
    if ((await this.ctx.storage.getAlarm()) === null) {
      const record = this.#cached(id) ?? (await loadRecord(this.#db, id));
      if (record) await this.#schedule(record);
    }
    this.#checkedAlarm = true;
  }

  /** The id the alarm acts on, written once (the synchronous KV shares the storage the alarm reads it from). */
  #remember(id: string): void {
    if (this.ctx.storage.kv.get<string>("verification_id") !== id) this.ctx.storage.kv.put("verification_id", id);
  }

  addCapture(id: string, input: CaptureInput): Promise<CaptureFlowResult> {
    return this.#captureFlow(id, plans.capturePlan(id, input));
  }

  answer(id: string, stepKey: string, value: string): Promise<CaptureFlowResult> {
    return this.#captureFlow(id, plans.answerPlan(id, stepKey, value));
  }

  submit(id: string): Promise<CaptureFlowResult> {
    return this.#captureFlow(id, plans.submitPlan);
  }

  progress(id: string, kind: ProgressKind, snapshot: Record<string, unknown>): Promise<CaptureFlowResult> {
    return this.#captureFlow(id, plans.progressPlan(kind, snapshot));
  }

  /** Written by the analysis worker: the verdict and the independent checks, then `completed`. */
  complete(id: string, outcome: { verdict: unknown; objectMatch?: unknown; locationMatch?: unknown; condition?: unknown }): Promise<MutationResult> {
    return this.#mutate(id, plans.completePlan(outcome));
  }

  fail(id: string, reason: string): Promise<MutationResult> {
    return this.#mutate(id, plans.failPlan(reason));
  }

  finalize(id: string, narrative: string, audit?: AuditEntry): Promise<MutationResult> {
    return this.#mutate(id, withAudit(plans.finalizePlan(narrative), audit));
  }

  /** The case analysis of the captures `read`, after finalize (synchronously or by the queue); again when later evidence came. */
  recordCaseAnalysis(id: string, caseAnalysis: unknown, read: readonly string[]): Promise<MutationResult> {
    return this.#mutate(id, plans.caseAnalysisPlan(caseAnalysis, read));
  }

  /** An operator's decision beside the verdict (which never changes); on the timeline and a webhook. */
  review(id: string, cmd: ReviewCommand, audit?: AuditEntry): Promise<MutationResult> {
    return this.#mutate(id, withAudit(plans.reviewPlan(cmd), audit));
  }

  /**
   * Mints an upload into this verification (a capture-flow write, counted like the others;
   * verification/upload-slots.ts), checked against the record this object holds, so the request
   * reads nothing in D1 when the object is warm; the record read otherwise is kept for the capture
   * that follows. 404 without the verification, and then nothing is counted or remembered.
   */
  async mintUpload(id: string, request: UploadRequest): Promise<{ ok: true; slot: UploadSlot } | ErrorResult> {
    const record = this.#cached(id) ?? (await loadRecord(this.#db, id));
    if (!record) return errorResult("not_found", "No such verification.");
    this.#record ??= record;
    const planned = planUpload(record.row, request);
    if (!planned.ok) return planned;
    return this.#admit() ?? this.#exclusive(async () => {
      await this.#takeCharge(id);
      const minted = await mintSlot(this.#cx, this.#slots, planned.mint);
      return minted.ok ? { ok: true as const, slot: planned.mint.slot } : minted;
    });
  }

  /**
   * The upload an `image_key` names, for a capture about to read its bytes: 404 without the
   * verification, 410 for a dead link, 400/409 from `checkSlot`. A slot this object minted (and its
   * PUT's digest: `finishUpload`) is answered from what it keeps (the record, its slots, its
   * captures' digests), so its capture reads nothing in D1 before the bytes; any other is read from
   * D1. A key a capture already holds is a retry, answered whenever it comes (`retryOf`: the
   * capture's forensic buffer, which its retry may name again). Counts and writes nothing: a guessed
   * id leaves no trace.
   */
  async uploadFor(id: string, objectKey: string): Promise<{ ok: true; upload: UploadSlot; retryOf?: { forensicBufferKey: string | null } } | ErrorResult> {
    const record = this.#cached(id) ?? (await loadRecord(this.#db, id));
    if (!record) return errorResult("not_found", "No such verification.");
    // Nothing cached yet: keep it for the capture that follows (a stale copy only costs #apply a retry).
    this.#record ??= record;
    const use = { verificationId: id, kind: "image", field: "image_key", now: this.clock() } as const;
    // A dead link answers 410 before anything of the upload (its digest, its type) is looked at.
    const dead = machine.guardLive(record.row, use.now);
    if (dead) return dead;
    if (!belongsTo(objectKey, id)) return checkSlot(null, use)!;
    const found = this.#slots.kept(objectKey) ?? (await findUpload(this.#db, objectKey));
    const slot = found && withDigest(found, record);
    const held = record.captures.find((c) => c.imageKey === objectKey);
    const refused = checkSlot(slot, { ...use, persisted: held !== undefined });
    if (refused) return refused;
    return { ok: true, upload: slot!, ...(held ? { retryOf: { forensicBufferKey: held.forensicBufferKey } } : {}) };
  }

  /**
   * A Worker-proxied PUT's claim on an upload of this verification (single use, decided here, in this
   * object's storage: the PUT reads and writes nothing in D1 before its bytes): 404 without the
   * verification or the upload, 410 for a dead link, 409 once a verdict, a failure or a submit closed
   * it (nothing claimed: `checkUploadPut`); otherwise the slot as it stood
   * and whether this PUT now holds it (`claimSlot`: free, and the body `fits`). A slot minted before
   * this object kept every slot is read from its row and kept from here on.
   */
  async claimUpload(id: string, claim: { uploadId: string; fits: UploadFit | null; now: number }): Promise<{ ok: true; slot: UploadSlot; claimed: boolean } | ErrorResult> {
    const record = this.#cached(id) ?? (await loadRecord(this.#db, id));
    if (!record) return errorResult("not_found", "No such upload URL.");
    this.#record ??= record;
    const closed = machine.checkUploadPut(record.row, claim.now);
    if (closed) return closed;
    let slot = this.#slots.keptById(id, claim.uploadId);
    if (!slot) {
      const row = await findUploadById(this.#db, claim.uploadId);
      // Read again after the await: a concurrent claim may have adopted the row meanwhile.
      slot = this.#slots.keptById(id, claim.uploadId) ?? (row?.verificationId === id ? keptSlotOf(row) : undefined);
    }
    if (!slot) return errorResult("not_found", "No such upload URL.");
    const claimed = claimKept(this.#slots, slot, claim.fits, claim.now);
    const { claimedAt: _claim, ...stood } = slot;
    return { ok: true, slot: stood, claimed };
  }

  /**
   * The PUT holding the claim made at `claimedAt` stored the bytes (`finishClaim`: the slot and its
   * row read `uploaded`). A verification redacted while they streamed takes nothing more: 410, the
   * slot forgotten, the bytes left to the final sweep its redaction armed.
   */
  async finishUpload(id: string, done: { objectKey: string; claimedAt: number; digest: StoredDigest; now: number }): Promise<{ ok: true; slot: UploadSlot } | ErrorResult> {
    if (!belongsTo(done.objectKey, id)) return errorResult("not_found", "No such upload URL.");
    const record = this.#cached(id) ?? (await loadRecord(this.#db, id));
    const redacted = record ? machine.guardNotRedacted(record.row) : errorResult("not_found", "No such upload URL.");
    if (redacted) {
      this.#slots.drop(done.objectKey);
      return redacted;
    }
    return finishClaim(this.env.DB, this.#slots, done);
  }

  /** The PUT holding the claim made at `claimedAt` failed: the URL may be used again. */
  async releaseClaim(id: string, objectKey: string, claimedAt: number): Promise<void> {
    if (belongsTo(objectKey, id)) releaseClaim(this.#slots, objectKey, claimedAt);
  }

  /**
   * A capture refused an upload's bytes for what they are (not an image, or not the type its URL
   * was minted for): no capture can ever take them, so the upload URL is given back to the cap
   * (probe of 2026-12-06: two such refusals held the end user's uploads for 65 minutes). Its row
   * goes, unless a capture holds the object; true when it went, and then the caller deletes the
   * bytes. Serialized with the captures, so a capture and a release of one key never interleave.
   */
  async releaseUpload(id: string, objectKey: string): Promise<boolean> {
    if (!belongsTo(objectKey, id)) return false;
    return this.#exclusive(async () => {
      const released = await deleteUnheldUpload(this.#db, id, objectKey);
      if (released) this.#slots.drop(objectKey);
      return released;
    });
  }

  /**
   * Irreversible and idempotent. The intent is stored (and the alarm armed) before anything else,
   * then: one D1 batch writes the tombstone, clears the other tables and records
   * `verification.redacted`; then every R2 object under the verification's prefix is deleted. A
   * crash or a failure anywhere is re-driven by the alarm until both are done.
   */
  async redact(id: string, by: string, audit?: AuditEntry): Promise<MutationResult> {
    return this.#exclusive(async () => {
      this.#remember(id);
      const pending = (await pendingRedaction(this.ctx.storage)) ?? { by, attempts: 0, retryAt: 0, ...(audit ? { audit } : {}) };
      await armRedactionRetry(this.ctx.storage, pending, this.clock());
      return completeRedaction(this.#cx, this.#redactionSteps(id), id, pending);
    });
  }

  /** What redaction's steps (verification/redaction.ts) do through this object, which holds the lock. */
  #redactionSteps(id: string): RedactionSteps {
    return {
      apply: (decide) => this.#apply(id, decide),
      redrive: () => this.#outbox.redrive(id, () => this.#hints(id)),
      schedule: (record) => this.#schedule(record),
    };
  }

  override async alarm(): Promise<void> {
    await this.#exclusive(async () => {
      const id = await this.ctx.storage.get<string>("verification_id");
      if (!id) return;
      let record = await loadRecord(this.#db, id);
      this.#record = record;
      if (!record) {
        await this.ctx.storage.deleteAll();
        return;
      }
      const now = this.clock();
      if (machine.expire(toState(record), now).ok) {
        const result = await this.#apply(id, plans.expirePlan);
        if (result.ok) record = result.record;
      }
      await this.#outbox.redrive(id, () => this.#hints(id));
      record = (await redriveRedaction(this.#cx, this.#redactionSteps(id), id)) ?? record;
      if (((await sweepDue(this.ctx.storage)) ?? Infinity) <= now) record = await runSweep(this.#cx, this.#slots, this.#redactionSteps(id), id, record, now);
      await this.#schedule(record);
    });
  }

  /**
   * Counts a capture-flow write (model/verification/write-window.ts) on arrival, before it queues behind
   * the writes in flight: a flood is refused at once. The analysis, the operator and the alarm do not count.
   */
  #admit(): ErrorResult | undefined {
    const retryAfter = this.#writes.hit(this.clock());
    if (retryAfter === undefined) return undefined;
    return { ...errorResult("too_many_requests", VERIFICATION_WRITE_LIMIT.message), retryAfter };
  }

  /** A capture-flow write: counted, then answered with what the end user's view shows, not the whole record. */
  async #captureFlow(id: string, decide: Decide): Promise<CaptureFlowResult> {
    const result = this.#admit() ?? (await this.#mutate(id, decide));
    return result.ok ? { ...result, record: captureFlowRecord(result.record) } : result;
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
    const d1 = this.env.DB;
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const cached = this.#cached(id);
      const record = cached ?? (await loadRecord(db, id));
      if (!record) return errorResult("not_found", "No such verification.");
      this.#record = record;
      const now = this.clock();
      const state = toState(record);
      const plan = await decide(state, record, now);
      if ("ok" in plan) return plan;
      if (plan.noop) return { ok: true, record, ...(plan.replayed ? { replayed: true } : {}) };
      const eventRows = plan.transition.events.map((e) => eventRow(id, state.tenantId, e, now));
      // Events earlier commits published are marked in this one (see Outbox#dispatch).
      const marks = this.#outbox.markStatements(d1, now);
      const commit = commitBatch({ db, d1, state, plan, eventRows, marks: marks.statements, now });
      let results: D1Result[];
      try {
        results = await d1.batch(commit.statements);
      } catch (err) {
        // A stale cache (the row moved or went) is retried from a fresh read, like a lost race.
        this.#record = null;
        if (isVersionConflict(err) || cached !== null) continue;
        throw err;
      }
      const after = commit.after(record, results);
      this.#record = after;
      if (!after) throw new Error("verification vanished after commit");
      await this.#outbox.dispatch(id, eventRows, marks.marked, eventHints(after));
      // Every change that leaves it over: what was uploaded and never captured goes, once in-flight uploads landed.
      if (isTerminal(after.row.status)) await sweepBy(this.ctx.storage, now + SWEEP_GRACE_MS);
      await this.#schedule(after);
      return { ok: true, record: after };
    }
    return errorResult("invalid_state", "The verification changed concurrently; retry the request.");
  }

  /** The events' routing hints from the record this object holds, if it holds one (a fresh instance re-driving: none). */
  #hints(id: string) {
    const record = this.#cached(id);
    return record ? eventHints(record) : {};
  }

  /** One alarm serves expiry, the outbox, the orphan sweep and a pending redaction (verification/alarm.ts). */
  #schedule(record: VerificationRecord): Promise<void> {
    return scheduleAlarm(this.ctx.storage, this.#outbox, record);
  }
}
