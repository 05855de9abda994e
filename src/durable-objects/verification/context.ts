import type { Db } from "../../db/client";
import type { VerificationRecord } from "../../db/verifications";
import type { EventPublisher } from "../../events/publisher";
import type { ErrorResult } from "../../lib/errors";
import type { CaptureFlowRecord } from "../../model/verification/present";

export type MutationResult = { ok: true; record: VerificationRecord; replayed?: boolean } | ErrorResult;
/** What the capture flow's writes answer with: the end user's view of the record (CaptureFlowRecord). */
export type CaptureFlowResult = { ok: true; record: CaptureFlowRecord; replayed?: boolean } | ErrorResult;

/** Deletes every object of a verification from the evidence bucket. */
export interface EvidencePurger {
  purge(verificationId: string): Promise<unknown>;
}

/**
 * What the modules beside the verification's object reach it through: its storage and bindings, and
 * the seams tests replace on the instance (publisher, purger, clock), read at each call.
 */
export interface ObjectContext {
  readonly storage: DurableObjectStorage;
  readonly env: Env;
  db(): Db;
  now(): number;
  publisher(): EventPublisher;
  purger(): EvidencePurger;
}
