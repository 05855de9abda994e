import type { z } from "@hono/zod-openapi";
import type { EventRow } from "../../db/verifications";
import type { VerificationSchema } from "../../schemas/verification";
import type { CertifiedSignal } from "../certificates/signals";
import type { CaptureView } from "../evidence/present";
import { idTimePart, takesCaptures } from "../../model/verification/capture-credential";

/*
 * What an evidence report shows, gathered before any drawing: the wire shapes the API serves (so the
 * report never says more, or other, than the API), each capture's thumbnail bytes, and the
 * certificate link the caller asked to print. A redacted verification's content carries no image,
 * answer, location, narrative, note or metadata: `gatherReport` leaves them out, and the layout only
 * draws what it is given.
 */

export type VerificationView = z.infer<typeof VerificationSchema>;

/** A capture's evidence thumbnail (JPEG, upright, at most 480 px on its longest side). */
export interface ReportImage {
  jpeg: Uint8Array;
  width: number;
  height: number;
}

export interface ReportCapture {
  view: Omit<CaptureView, "image_url" | "thumbnail_url" | "depth_map_url" | "credentials_url">;
  image: ReportImage | null;
  /**
   * A copy with Content Credentials can be downloaded (the capture's `credentials_url`). The report
   * says so and how to get one, never the URL: it dies within minutes, the report is kept for years.
   */
  credentials: boolean;
}

export interface ReportEvent {
  name: string;
  occurredAt: string;
}

export interface ReportContent {
  generatedAt: string;
  issuer: string;
  tenant: { id: string; displayName: string; verifiedDomain: string | null };
  verification: VerificationView;
  /** Each required signal with its status and the method that decided it (as certificates say it). */
  signals: Record<string, CertifiedSignal>;
  captures: ReportCapture[];
  /** The reviewer's email or phone while the review's author is still a member of the tenant; null: a former member. */
  reviewer: string | null;
  /** The timeline's first and last entries (all of it when short), and how many lie between. */
  timeline: { first: ReportEvent[]; between: number; last: ReportEvent[] };
  /** A certificate link the caller holds and asked to print (URL and QR code). */
  certificateLinkUrl: string | null;
  redacted: boolean;
}

export function reportEvents(rows: readonly EventRow[]): ReportEvent[] {
  return rows.map((e) => ({ name: e.name, occurredAt: new Date(e.occurredAt).toISOString() }));
}

/**
 * The verification's id as the report prints it. While the verification takes captures its id is the
 * capture link's credential (`takesCaptures`), and a report is handed around: then only its time part
 * is printed, the random rest withheld, and the report says why.
 */
export function printedId(v: Pick<VerificationView, "id" | "status" | "expires_at" | "redacted_at">, at: string): { id: string; fileId: string; withheld: boolean } {
  const open = takesCaptures({ status: v.status, expiresAt: Date.parse(v.expires_at), redacted: Boolean(v.redacted_at) }, Date.parse(at));
  const timePart = idTimePart(v.id);
  return open ? { id: `${timePart}…`, fileId: timePart, withheld: true } : { id: v.id, fileId: v.id, withheld: false };
}
