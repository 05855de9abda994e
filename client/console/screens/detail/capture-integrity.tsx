import type { Capture } from "../../api";

/*
 * How a photo was captured, in a reviewer's words: what the capture page reported of the camera and
 * of the frames around the shutter. Client-reported, so it is described as a report, never as proof
 * that the photo was taken with a camera.
 */

type Integrity = NonNullable<Capture["capture_integrity"]>;

const CONTROL_WORDS: Record<string, string> = { focusMode: "focus", exposureMode: "exposure", whiteBalanceMode: "white balance", zoom: "zoom", torch: "torch" };

function camera(d: Integrity["device"]): string {
  const size = d.settings.width && d.settings.height ? `${d.settings.width} × ${d.settings.height}` : "size not reported";
  const rate = d.settings.frame_rate ? ` at ${Math.round(d.settings.frame_rate)} frames a second` : "";
  const controls = d.controls.length > 0 ? d.controls.map((c) => CONTROL_WORDS[c] ?? c).join(", ") : "none reported";
  return `${d.label ? `“${d.label}”` : "an unnamed camera (or a name removed by redaction)"}, ${size}${rate}; controls: ${controls}`;
}

function frames(b: Integrity["burst"], p: Integrity["preview"]): string {
  const parts = [
    `${b.frames} frames over ${Math.round(b.duration_ms)} ms`,
    b.identical_pairs > 0 ? `${b.identical_pairs} identical to the one before` : "none identical to the one before",
    b.repeated_frames + p.repeated_frames > 0 ? `${b.repeated_frames + p.repeated_frames} repeating earlier frames exactly` : "no repeated frames",
    `sensor noise ${b.temporal_noise.toFixed(1)} grey levels`,
    `motion ${b.motion_px.toFixed(1)} px a frame`,
  ];
  return parts.join(", ");
}

function depth(b: Integrity["burst"]): string {
  if (!b.parallax) return "too little texture to tell";
  return `near and far moved ${b.parallax.residual_px.toFixed(2)} px apart from one flat plane over ${b.parallax.blocks} patches (the picture moved ${b.parallax.baseline_px.toFixed(1)} px)`;
}

/** The facts rows for a capture: the record, or what its absence means for a live capture. */
export function CaptureIntegrityFacts(props: { capture: Capture }) {
  const record = props.capture.capture_integrity;
  if (!record) {
    if (props.capture.source !== "live") return null;
    return (
      <>
        <dt>How it was captured</dt>
        <dd>No record of the camera came with this photo: it was not taken with the capture page's live camera (a script, an app of your own, or the phone's camera app), so nothing here says it was taken live.</dd>
      </>
    );
  }
  return (
    <>
      <dt>How it was captured</dt>
      <dd>Reported by the capture page (a cue, not proof): the camera {camera(record.device)}.</dd>
      <dt>Frames around the shutter</dt>
      <dd>
        {frames(record.burst, record.preview)}; depth: {depth(record.burst)}. The preview ran {(record.preview.duration_ms / 1000).toFixed(1)} s ({record.preview.frames} frames).
      </dd>
    </>
  );
}
