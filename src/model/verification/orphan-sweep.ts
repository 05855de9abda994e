import type { StoredObject } from "../../storage/evidence";

/*
 * Orphaned evidence: bytes in R2 that no capture references (uploaded but never captured, or inline
 * bytes a refused capture left behind after a crash). The Durable Object's alarm sweeps them; this
 * module decides what goes and when to look again, as a pure function of what is stored.
 */

/** Longer than an upload URL lives (5 min): bytes still in flight when the sweep runs land first. */
export const SWEEP_GRACE_MS = 6 * 60 * 1000;
/**
 * How long after its URL expired an upload may still be captured. Later it is an orphan: swept even
 * while the verification is open, and refused as `expired` by a capture that names it.
 */
export const CAPTURE_WINDOW_MS = 60 * 60 * 1000;

export interface SweepInput {
  now: number;
  /** The verification is over: nothing more can be captured. */
  terminal: boolean;
  objects: StoredObject[];
  /** Keys some capture references (image or forensic buffer). */
  referenced: ReadonlySet<string>;
  /** The verification's upload URLs: what each object was minted for, and until when. */
  uploads: ReadonlyArray<{ objectKey: string; expiresAt: number }>;
}

export interface SweepPlan {
  remove: string[];
  /** When to sweep again (something kept may become an orphan, or an open URL may still deliver), or null. */
  nextAt: number | null;
}

export function planSweep(input: SweepInput): SweepPlan {
  const { now, terminal } = input;
  const expiryOf = new Map(input.uploads.map((u) => [u.objectKey, u.expiresAt]));
  const remove: string[] = [];
  const later: number[] = [];
  for (const object of input.objects) {
    if (input.referenced.has(object.key)) continue;
    const expiresAt = expiryOf.get(object.key);
    // Open: an upload may still be captured within its window; anything else (inline leftovers) after the grace.
    const orphanAt = !terminal && expiresAt !== undefined ? expiresAt + CAPTURE_WINDOW_MS : object.uploadedAt + SWEEP_GRACE_MS;
    if (now >= Math.max(orphanAt, object.uploadedAt + SWEEP_GRACE_MS)) remove.push(object.key);
    else later.push(Math.max(orphanAt, object.uploadedAt + SWEEP_GRACE_MS));
  }
  // A URL still open may deliver bytes after this sweep: come back once it cannot anymore.
  for (const upload of input.uploads) {
    if (upload.expiresAt > now) later.push(upload.expiresAt + (terminal ? SWEEP_GRACE_MS : CAPTURE_WINDOW_MS));
  }
  return { remove, nextAt: later.length > 0 ? Math.min(...later) : null };
}
