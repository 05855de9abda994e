import type { Db } from "../../db/client";
import { indexAndFindReplays } from "../../db/burst-frames";
import type { CaptureRow } from "../../db/verifications";
import { checkNonce, type NonceCheck } from "../../domain/capture/burst-nonce";
import { sha256Hex } from "../../lib/crypto";
import { signingKey } from "../../lib/signing-keys";
import type { CaptureIntegrityV2 } from "../../schemas/capture-integrity";
import { burstKeysFor, readEvidence } from "../../storage/evidence";
import { DecodeFailure } from "../decoders/types";
import { frameStd, FLAT_FRAME_STD, type GreyFrame } from "./measures";
import { readGreyStrip } from "./strip";

/*
 * Everything the analysis checks about a live capture's burst that needs storage or keys, before
 * the pure decision (signals/capture-burst.ts): the strips read back and checked against the digests
 * the capture recorded, the nonce, the other captures of the verification that carried the same
 * nonce, the attestation token's binding, and the tenant's earlier captures that hold any of the
 * same frames (db/burst-frames.ts).
 */

export interface ReceivedBurst {
  record: CaptureIntegrityV2;
  /** The decoded frames (`t`: ms from the press) and native patches, or why they could not be read. */
  frames: GreyFrame[];
  patches: Uint8Array[];
  unreadable: string | null;
  nonce: NonceCheck;
  /** Other captures of this verification that carried the same nonce. */
  nonceReusedBy: string[];
  /** A passing attestation token whose `cData` is not this burst's nonce (null: no passing token to compare). */
  attestationUnbound: { cdata: string | null } | null;
  /** The tenant's other captures that share a frame with this burst. */
  replayOf: string[];
}

export interface BurstContext {
  env: Env;
  db: Db;
  capture: CaptureRow;
  /** Every capture of the verification (the nonce's single use is checked among them). */
  captures: readonly CaptureRow[];
  now: number;
}

export async function receivedBurst(cx: BurstContext, record: CaptureIntegrityV2): Promise<ReceivedBurst> {
  const { capture } = cx;
  const [strips, nonce] = await Promise.all([readStrips(cx.env.EVIDENCE, capture, record), checkNonce(await signingKey(cx.env, "burst_nonces"), capture.verificationId, record.nonce, capture.createdAt)]);
  const nonceReusedBy = cx.captures.filter((c) => c.id !== capture.id && nonceOf(c.captureIntegrity) === record.nonce).map((c) => c.id);
  const attestation = capture.attestation as { verdict?: string; cdata?: string } | null;
  const attestationUnbound = attestation?.verdict === "pass" && attestation.cdata !== record.nonce ? { cdata: attestation.cdata ?? null } : null;
  const digests = strips.unreadable ? [] : await frameDigests(strips.frames);
  const replayOf = await indexAndFindReplays(cx.db, { tenantId: capture.tenantId, verificationId: capture.verificationId, captureId: capture.id, digests, now: cx.now });
  return { record, ...strips, nonce, nonceReusedBy, attestationUnbound, replayOf };
}

function nonceOf(integrity: unknown): string | null {
  const r = integrity as { schema_version?: unknown; nonce?: unknown } | null;
  return r?.schema_version === 2 && typeof r.nonce === "string" ? r.nonce : null;
}

async function readStrips(bucket: R2Bucket, capture: CaptureRow, record: CaptureIntegrityV2): Promise<Pick<ReceivedBurst, "frames" | "patches" | "unreadable">> {
  const keys = burstKeysFor(capture.verificationId, capture.id, { frames: record.frames.sha256, patches: record.patches.sha256 });
  const [framesPng, patchesPng] = await Promise.all([readEvidence(bucket, keys.frames), readEvidence(bucket, keys.patches)]);
  const none = { frames: [], patches: [] };
  if (!framesPng || !patchesPng) return { ...none, unreadable: "the burst's strips are not in storage" };
  if ((await sha256Hex(framesPng)) !== record.frames.sha256 || (await sha256Hex(patchesPng)) !== record.patches.sha256) {
    return { ...none, unreadable: "the stored strips differ from the digests the capture recorded" };
  }
  try {
    const { width, height, times_ms } = record.frames;
    const frames = readGreyStrip(framesPng, width, height, times_ms.length).map((luma, i) => ({ t: times_ms[i]!, width, height, luma }));
    const patches = readGreyStrip(patchesPng, record.patches.side, record.patches.side, record.patches.times_ms.length);
    return { frames, patches, unreadable: null };
  } catch (err) {
    if (err instanceof DecodeFailure) return { ...none, unreadable: err.message };
    throw err;
  }
}

/** A 64-bit digest (hex) of each frame with something in it: flat frames (a covered lens) match anything. */
async function frameDigests(frames: readonly GreyFrame[]): Promise<string[]> {
  const out: string[] = [];
  for (const f of frames) if (frameStd(f.luma) >= FLAT_FRAME_STD) out.push((await sha256Hex(f.luma)).slice(0, 16));
  return out;
}
