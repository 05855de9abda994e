import type { Capture } from "../../api";

/*
 * How a photo was captured, in a reviewer's words. A version 2 record is the burst the capture page
 * sent (the frames themselves, which the service measured: the depth signal says what it found) and
 * what the page reported of its camera and preview (claims). A version 1 record holds only the
 * page's own numbers: a claim, which the service never took as a check.
 */

type Integrity = NonNullable<Capture["capture_integrity"]>;
type Device = Integrity["device"];

const CONTROL_WORDS: Record<string, string> = { focusMode: "focus", exposureMode: "exposure", whiteBalanceMode: "white balance", zoom: "zoom", torch: "torch" };

function camera(d: Device): string {
  const size = d.settings.width && d.settings.height ? `${d.settings.width} × ${d.settings.height}` : "size not reported";
  const rate = d.settings.frame_rate ? ` at ${Math.round(d.settings.frame_rate)} frames a second` : "";
  const controls = d.controls.length > 0 ? d.controls.map((c) => CONTROL_WORDS[c] ?? c).join(", ") : "none reported";
  return `${d.label ? `“${d.label}”` : "an unnamed camera (or a name removed by redaction)"}, ${size}${rate}; controls: ${controls}`;
}

function received(record: Extract<Integrity, { schema_version: 2 }>): string {
  const { frames: f, patches: p } = record;
  const span = f.times_ms.length > 1 ? Math.round(f.times_ms.at(-1)! - f.times_ms[0]!) : 0;
  return `${f.count} frames of ${f.width} × ${f.height} over ${span} ms around the shutter, and ${p.count} patches of ${p.side} × ${p.side} at the camera's full resolution (${Math.round((f.bytes + p.bytes) / 1024)} KB). The service measured them: see Depth in the analysis.`;
}

function claimed(record: Extract<Integrity, { schema_version: 1 }>): string {
  const b = record.burst;
  return `${b.frames} frames over ${Math.round(b.duration_ms)} ms, sensor noise ${b.temporal_noise.toFixed(1)}, motion ${b.motion_px.toFixed(1)} px a frame. These are the page's own numbers, not frames: the service did not take them as a check.`;
}

/** The facts rows for a capture: the record, or what its absence means for a live capture. */
export function CaptureIntegrityFacts(props: { capture: Capture }) {
  const record = props.capture.capture_integrity;
  if (!record) {
    if (props.capture.source !== "live") return null;
    return (
      <>
        <dt>How it was captured</dt>
        <dd>No frames came with this photo: it was not taken with the capture page's live camera (a script, an app of your own, or the phone's camera app), so nothing here says it was taken live.</dd>
      </>
    );
  }
  const preview = record.preview;
  return (
    <>
      <dt>How it was captured</dt>
      <dd>
        The camera, as the capture page reported it: {camera(record.device)}. Its preview ran {(preview.duration_ms / 1000).toFixed(1)} s ({preview.frames} frames
        {preview.repeated_frames > 0 ? `, ${preview.repeated_frames} repeating earlier frames exactly` : ""}).
      </dd>
      <dt>Frames around the shutter</dt>
      <dd>{record.schema_version === 2 ? received(record) : claimed(record)}</dd>
    </>
  );
}
