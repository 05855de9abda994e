import { useRef, useState } from "preact/hooks";
import { api, ok, type Capture, type Verification } from "../../api";
import { CaptureIntegrityFacts } from "./capture-integrity";
import { Badge, Dialog, Empty, ErrorNotice, Progress } from "../../components/ui";
import { bytes, formatDateTime } from "../../lib/format";
import { distanceMetres, formatDistance, formatPoint, isPoint, mapUrl } from "../../lib/geo";
import type { Loaded } from "../../lib/hooks";
import { explainCode, explainNotAssessed, SIGNAL_CHECKS, signalResult } from "../../lib/signals";

type CaptureSignal = Capture["analysis"]["signals"][string];

/**
 * The evidence: a grid of thumbnails (each with its signals at a glance) that opens a full-size
 * viewer. Image URLs are signed for 5 minutes; an image that fails to load is fetched again with a
 * fresh URL (`GET /v1/captures/{id}`).
 */
export function Photos(props: { verification: Verification; captures: Loaded<{ items: Capture[] }> }) {
  const { verification: v, captures } = props;
  const [open, setOpen] = useState<number | undefined>(undefined);
  const items = captures.data?.items ?? [];
  const refresh = async (id: string) => {
    const fresh = await ok(api.GET("/v1/captures/{id}", { params: { path: { id } } }));
    captures.set({ items: items.map((c) => (c.id === id ? fresh : c)) });
  };
  if (v.redacted_at) return <Empty>The evidence was erased on {formatDateTime(v.redacted_at)}. Ids, digests and the verdict remain.</Empty>;
  if (captures.loading && !captures.data) return <Progress label="Loading the photos…" />;
  if (captures.error) return <ErrorNotice error={captures.error} what="The photos could not be loaded" />;
  if (items.length === 0) return <Empty>No photos or files yet.</Empty>;
  return (
    <>
      <ul class="photo-grid">
        {items.map((c, i) => (
          <li key={c.id}>
            <button type="button" class="thumb" onClick={() => setOpen(i)}>
              {c.thumbnail_url ? (
                <img src={c.thumbnail_url} alt={`Photo ${i + 1} of ${items.length}, step ${c.step_key}`} loading="lazy" onError={() => void refresh(c.id)} />
              ) : (
                <span class="no-thumb">
                  Photo {i + 1} of {items.length}, step {c.step_key}: {c.analysis.status === "pending" ? "being analysed" : "no preview"}
                </span>
              )}
            </button>
            <span class="meta">
              {c.step_key} · {c.source === "live" ? "photo step" : "uploaded"} · {formatDateTime(c.created_at)}
            </span>
            <SignalBadges capture={c} />
          </li>
        ))}
      </ul>
      <Viewer verification={v} captures={items} index={open} onIndex={setOpen} onStale={refresh} />
    </>
  );
}

function SignalBadges(props: { capture: Capture }) {
  const entries = Object.entries(props.capture.analysis.signals);
  if (props.capture.analysis.status === "pending") return <span class="meta">Analysing…</span>;
  return (
    <span class="signal-badges">
      {entries.map(([key, s]) => {
        const { tone } = describe(key, s);
        return (
          <Badge key={key} tone={tone}>
            {SIGNAL_CHECKS[key]?.name ?? key}
          </Badge>
        );
      })}
    </span>
  );
}

function describe(key: string, s: CaptureSignal): { text: string; tone: "good" | "bad" | "neutral" | "warn" } {
  if (s.status === "assessed") return signalResult(key, { ...s.value, ...(s.confidence !== undefined ? { confidence: s.confidence } : {}), evidence: s.evidence });
  return signalResult(key, s as unknown as Record<string, unknown>);
}

const ZOOMS = [1, 1.5, 2, 3, 4];
/** Types every browser shows; a HEIC/HEIF original is shown through its JPEG thumbnail. */
const SHOWN = new Set(["image/jpeg", "image/png", "image/webp"]);
const displayable = (c: Capture): string | undefined => (SHOWN.has(c.media_type) ? c.image_url : (c.thumbnail_url ?? undefined));

function Viewer(props: { verification: Verification; captures: Capture[]; index: number | undefined; onIndex: (i: number | undefined) => void; onStale: (id: string) => Promise<void> }) {
  const { captures, index } = props;
  // The zoom belongs to the photo it was set on: derived, not reset by an effect, so a key pressed
  // right after moving to the next photo is never undone by a late reset.
  const [zoomed, setZoomed] = useState<{ index: number | undefined; zoom: number }>({ index: undefined, zoom: 0 });
  const zoom = zoomed.index === index ? zoomed.zoom : 0;
  const setZoom = (next: number | ((z: number) => number)) =>
    setZoomed((cur) => {
      const from = cur.index === index ? cur.zoom : 0;
      return { index, zoom: typeof next === "function" ? next(from) : next };
    });
  const stage = useRef<HTMLDivElement>(null);
  const capture = index !== undefined ? captures[index] : undefined;
  if (index === undefined || !capture) return <Dialog open={false} title="" onClose={() => props.onIndex(undefined)}>{null}</Dialog>;
  const go = (by: number) => props.onIndex((index + by + captures.length) % captures.length);
  const onKey = (e: KeyboardEvent) => {
    if (e.key === "ArrowRight") go(1);
    else if (e.key === "ArrowLeft") go(-1);
    else if (e.key === "+" || e.key === "=") setZoom((z) => Math.min(z + 1, ZOOMS.length - 1));
    else if (e.key === "-") setZoom((z) => Math.max(z - 1, 0));
    else if (e.key === "0") setZoom(0);
    else return;
    e.preventDefault();
  };
  const scale = ZOOMS[zoom]!;
  return (
    <Dialog open title={`Photo ${index + 1} of ${captures.length}: step ${capture.step_key}`} onClose={() => props.onIndex(undefined)} class="viewer">
      <div class="viewer-body" onKeyDown={onKey}>
        <div class="viewer-controls" role="toolbar" aria-label="Photo">
          <button type="button" class="button secondary small" onClick={() => go(-1)} disabled={captures.length < 2}>
            Previous
          </button>
          <button type="button" class="button secondary small" onClick={() => go(1)} disabled={captures.length < 2}>
            Next
          </button>
          <button type="button" class="button secondary small" onClick={() => setZoom(Math.max(zoom - 1, 0))} disabled={zoom === 0}>
            Zoom out
          </button>
          <span class="zoom-level" aria-live="polite">
            {Math.round(scale * 100)} %
          </span>
          <button type="button" class="button secondary small" onClick={() => setZoom(Math.min(zoom + 1, ZOOMS.length - 1))} disabled={zoom === ZOOMS.length - 1}>
            Zoom in
          </button>
          <button type="button" class="button secondary small" onClick={() => props.onIndex(undefined)}>
            Close
          </button>
        </div>
        <p class="hint">Keys: ← → previous and next, + and − zoom, 0 fits, Esc closes.</p>
        <div class="viewer-stage" ref={stage} tabIndex={0} aria-label="Photo, scroll to pan when zoomed">
          {displayable(capture) ? (
            <img
              src={displayable(capture)}
              alt={`Photo ${index + 1}, step ${capture.step_key}, submitted ${formatDateTime(capture.client_captured_at ?? capture.created_at)}`}
              style={{ width: `${scale * 100}%` }}
              onError={() => void props.onStale(capture.id)}
            />
          ) : (
            <Empty>The image is not available.</Empty>
          )}
        </div>
        {capture.image_url && displayable(capture) !== capture.image_url ? (
          <p class="hint">
            Browsers cannot show {capture.media_type}: this is its JPEG preview.{" "}
            <a href={capture.image_url} download>
              Download the original
            </a>
          </p>
        ) : null}
        <CaptureDetails verification={props.verification} capture={capture} />
      </div>
    </Dialog>
  );
}

function CaptureDetails(props: { verification: Verification; capture: Capture }) {
  const c = props.capture;
  const expected = props.verification.location_match?.expected_point;
  const here = c.location ? { lat: c.location.lat, lng: c.location.lng } : undefined;
  return (
    <div class="capture-details">
      <dl class="facts">
        <dt>Submitted</dt>
        <dd>
          {formatDateTime(c.client_captured_at ?? c.created_at)} ({c.source === "live" ? "through the capture link, for a photo step" : "an uploaded file"})
        </dd>
        <CaptureIntegrityFacts capture={c} />
        <dt>File</dt>
        <dd>
          {c.media_type}, {bytes(c.size_bytes)}
          {c.width && c.height ? `, ${c.width} × ${c.height} px` : ""}
        </dd>
        <dt>SHA-256</dt>
        <dd class="mono">{c.sha256}</dd>
        {c.credentials_url ? (
          <>
            <dt>Content Credentials</dt>
            <dd>
              <a href={c.credentials_url} download>
                Download with Content Credentials
              </a>{" "}
              (this file, unchanged, with a C2PA manifest this service signs: what it received and when, and each check as assessed)
            </dd>
          </>
        ) : null}
        <dt>Location</dt>
        <dd>
          {here ? (
            <>
              {formatPoint(here)}
              {c.location?.accuracy_m !== undefined ? ` ±${Math.round(c.location.accuracy_m)} m` : ""} ({c.location?.source === "exif" ? "from the photo's EXIF" : "from the device"}){" "}
              <a href={mapUrl(here)} target="_blank" rel="noopener noreferrer">
                open the map
              </a>
              {isPoint(expected) ? <> · {formatDistance(distanceMetres(here, expected))} from the expected address</> : null}
              {c.location?.is_mock ? (
                <>
                  {" "}
                  <Badge tone="bad">mock location reported</Badge>
                </>
              ) : null}
            </>
          ) : (
            "none reported"
          )}
        </dd>
        {c.attestation ? (
          <>
            <dt>Browser attestation</dt>
            <dd>
              <Badge tone={c.attestation.verdict === "pass" ? "good" : c.attestation.verdict === "fail" ? "bad" : "warn"}>{c.attestation.verdict}</Badge> ({c.attestation.provider})
            </dd>
          </>
        ) : null}
      </dl>
      <h3>What was checked</h3>
      {c.analysis.status === "pending" ? <Progress label="The analysis of this photo is running…" /> : null}
      <ul class="signal-list">
        {Object.entries(c.analysis.signals).map(([key, s]) => {
          const { text, tone } = describe(key, s);
          return (
            <li key={key}>
              <strong>{SIGNAL_CHECKS[key]?.name ?? key}</strong> <Badge tone={tone}>{text}</Badge>
              <span class="meta">Checks {SIGNAL_CHECKS[key]?.checks ?? key}.</span>
              {s.status === "not_assessed" ? <span class="meta">Not assessed: {explainNotAssessed(s.reason)}.</span> : null}
              {"evidence" in s && s.evidence && s.evidence.length > 0 ? (
                <ul class="evidence">
                  {s.evidence.map((e, i) => (
                    <li key={i}>
                      <code>{e.code}</code>: {explainCode(e.code, e.detail)}
                      {e.value !== undefined ? ` (${String(e.value)})` : ""}
                    </li>
                  ))}
                </ul>
              ) : null}
              {"provider" in s && s.provider ? (
                <span class="meta">
                  by {s.provider}
                  {s.method_version ? `, ${s.method_version}` : ""}
                </span>
              ) : null}
            </li>
          );
        })}
      </ul>
      {c.analysis.notes.length > 0 ? (
        <>
          <h3>Notes</h3>
          <ul>
            {c.analysis.notes.map((n, i) => (
              <li key={i}>
                <code>{n.code}</code>: {explainCode(n.code, n.detail)}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </div>
  );
}
