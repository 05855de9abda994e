import { closeCamera, liveCameraSupported, openCamera, photoOf, reencodeAsJpeg, stillOf } from "../camera";
import type { ScreenContext } from "../context";
import { h, nextPaint, show } from "../dom";
import type { ImageStepView } from "../flow";
import { fileMediaType } from "../file-type";
import { watchLocation } from "../location";
import { watchPreview } from "../integrity/monitor";
import type { PendingIntegrity } from "../../../src/schemas/capture-integrity";
import { errorList, filePicker, leaveButton, stepHeader } from "./common";

let reportedPermission = false;

/** A live photo: camera preview → shutter → review (retake or use) → queued; repeated up to the step's max. */
export function imageStep(ctx: ScreenContext, step: ImageStepView): void {
  const { i18n } = ctx;
  const n = ctx.count(step.key);
  // Come back to (the browser's Back) with every photo it takes: what it holds and the way on, no camera.
  if (n >= step.max) {
    closeCamera();
    show(ctx.root, ...stepHeader(ctx, step.description || i18n.t("image_heading")), h("p", { class: "counter" }, i18n.t("files_counter", { n, max: step.max })), leaveButton(ctx, step, true));
    return;
  }
  // Asked for before anything else here: the preview waits on it, and its prompt comes before the location's.
  const camera = liveCameraSupported() ? openCamera() : null;
  watchLocation();
  const counter = h(
    "p",
    { class: "counter" },
    step.min === step.max ? i18n.t("photo_counter", { n: n + 1, max: step.max }) : i18n.t("photo_counter_optional", { n: n + 1, max: step.max }),
  );
  const stage = h("div", { class: "stage" });
  // On screen, disabled, from the start: were it added once the camera runs, everything below it
  // would move down under a finger already on its way to Skip.
  const shutter = h("button", { type: "button", class: "button primary shutter", disabled: true }, i18n.t("shutter"));
  const actions = h("div", { class: "actions" }, shutter);
  const leave = leaveButton(ctx, step);
  show(ctx.root, ...stepHeader(ctx, step.description || i18n.t("image_heading")), counter, stage, actions, leave);

  const review = (blob: Blob, contentType: string, capturedAt: number, integrity?: PendingIntegrity) => {
    ctx.progress.stepReached("reviewing", ctx.index);
    const url = URL.createObjectURL(blob);
    const done = () => URL.revokeObjectURL(url);
    show(
      ctx.root,
      ...stepHeader(ctx, step.description || i18n.t("image_heading")),
      counter,
      h("div", { class: "stage" }, h("img", { src: url, alt: i18n.t("preview_label"), class: "preview" })),
      h(
        "div",
        { class: "actions two" },
        h("button", { type: "button", class: "button secondary", onclick: () => (done(), ctx.refresh()) }, i18n.t("retake")),
        h(
          "button",
          {
            type: "button",
            class: "button primary",
            onclick: async (e: Event) => {
              (e.currentTarget as HTMLButtonElement).disabled = true;
              await ctx.addCapture(step.key, blob, contentType, capturedAt, integrity);
              done();
              if (ctx.count(step.key) >= step.max) ctx.next();
              else ctx.refresh();
            },
          },
          i18n.t("use_photo"),
        ),
      ),
    );
  };

  // The camera app, through the browser's file input: the fallback wherever live capture is not possible.
  const cameraApp = (primary: boolean) =>
    filePicker(
      i18n.t("use_camera_app"),
      { accept: "image/*", capture: "environment" },
      async ([file]) => {
        if (!file) return;
        // Sent as what its bytes are; anything else the server would not take (or too big) goes as a JPEG.
        const type = await fileMediaType(file);
        let blob: Blob;
        try {
          blob = !type || file.size > ctx.view().limits.image_max_bytes ? await reencodeAsJpeg(file) : file;
        } catch {
          // Not an image this browser can open (a text file, RAW, a HEIC over the limit where HEIC is not decoded).
          stage.replaceChildren(errorList([i18n.t("photo_unreadable", { name: file.name })])!);
          return;
        }
        if (blob.size > ctx.view().limits.image_max_bytes) {
          const [size, limit] = i18n.bytesPair(blob.size, ctx.view().limits.image_max_bytes);
          stage.replaceChildren(errorList([i18n.t("file_too_large", { name: file.name, size, limit })])!);
          return;
        }
        review(blob, blob === file ? type : "image/jpeg", file.lastModified || Date.now());
      },
      primary,
    );

  const blocked = (reason: "denied" | "unavailable") => {
    closeCamera();
    if (!reportedPermission) ctx.progress.camera(reason, ctx.index);
    reportedPermission = true;
    if (reason === "denied") ctx.progress.stepReached("camera_blocked", ctx.index);
    const title = reason === "denied" ? i18n.t("camera_denied_heading") : i18n.t("camera_unavailable_heading");
    const body = reason === "denied" ? i18n.t("camera_denied_body") : i18n.t("camera_unavailable_body");
    stage.replaceChildren(h("div", { class: "notice", role: "alert" }, h("h2", null, title), h("p", null, body)));
    actions.replaceChildren(cameraApp(true));
    if (reason === "denied") {
      reportedPermission = false; // report again if a retry changes the answer
      actions.appendChild(h("button", { type: "button", class: "button secondary", onclick: () => ctx.refresh() }, i18n.t("try_again")));
    }
  };

  if (!camera) return blocked("unavailable");
  stage.replaceChildren(h("p", { class: "status", role: "status" }, i18n.t("camera_starting")));
  void camera.then(async (outcome) => {
    if (!stage.isConnected) return; // the user moved on meanwhile
    if (!outcome.ok) return outcome.reason === "closed" ? undefined : blocked(outcome.reason);
    if (!reportedPermission) ctx.progress.camera("granted", ctx.index);
    reportedPermission = true;
    const video = h("video", { class: "viewfinder", autoplay: true, muted: true, playsInline: true, "aria-label": i18n.t("camera_label") });
    video.setAttribute("playsinline", "");
    video.srcObject = outcome.stream;
    stage.replaceChildren(video);
    await video.play().catch(() => undefined);
    // Reading a frame can hold the main thread for a few hundred ms where canvases are drawn without
    // a GPU: the watch starts once the preview has been rendered, not in front of it.
    await nextPaint();
    // What the preview shows of the camera, for the capture-integrity record sent with the photo.
    const monitor = watchPreview(video, outcome.stream);
    ctx.progress.stepReached("capturing", ctx.index);
    shutter.onclick = async () => {
      shutter.disabled = true;
      try {
        const capturedAt = Date.now();
        const still = stillOf(video);
        const [photo, integrity] = await Promise.all([photoOf(still), monitor.record(still)]);
        monitor.stop();
        review(photo, "image/jpeg", capturedAt, integrity ?? undefined);
      } catch {
        shutter.disabled = false;
      }
    };
    shutter.disabled = false;
  });
}
