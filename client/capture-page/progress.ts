/*
 * Funnel reports (`POST /progress`): where the end user got to and what the camera permission was.
 * Fire and forget; `abandoned` goes with sendBeacon because the page is being torn down. The API
 * takes only `application/json` bodies, so the beacon sends a Blob of that type (same origin: no
 * preflight is involved).
 */
export type ProgressStep = "landing" | "ready" | "capturing" | "reviewing" | "uploading" | "camera_blocked" | "success";
export type CameraPermission = "granted" | "denied" | "unavailable" | "unknown";

export class Progress {
  private readonly startedAt = Date.now();
  private last = "";
  private lastStep: { step: ProgressStep; index?: number } = { step: "landing" };

  constructor(private readonly url: string) {}

  stepReached(step: ProgressStep, stepIndex?: number): void {
    this.lastStep = { step, ...(stepIndex !== undefined ? { index: stepIndex } : {}) };
    const key = `${step}:${stepIndex ?? ""}`;
    if (key === this.last) return;
    this.last = key;
    this.post({ kind: "step_reached", step, ...(stepIndex !== undefined ? { step_index: stepIndex } : {}) });
  }

  camera(permission: CameraPermission, stepIndex?: number): void {
    const step: ProgressStep = permission === "granted" ? "capturing" : permission === "denied" ? "camera_blocked" : "ready";
    this.post({ kind: "camera_permission", step, camera_permission: permission, ...(stepIndex !== undefined ? { step_index: stepIndex } : {}) });
  }

  /** The page is going away unfinished. */
  abandoned(): void {
    const body = JSON.stringify(this.body({ kind: "abandoned", step: this.lastStep.step, ...(this.lastStep.index !== undefined ? { step_index: this.lastStep.index } : {}) }));
    if (typeof navigator.sendBeacon === "function" && navigator.sendBeacon(this.url, new Blob([body], { type: "application/json" }))) return;
    void fetch(this.url, { method: "POST", headers: { "Content-Type": "application/json" }, body, keepalive: true, credentials: "omit" }).catch(() => undefined);
  }

  private body(fields: Record<string, unknown>): Record<string, unknown> {
    return { schema_version: 1, ...fields, elapsed_ms: Date.now() - this.startedAt };
  }

  private post(fields: Record<string, unknown>): void {
    void fetch(this.url, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(this.body(fields)),
      keepalive: true,
      credentials: "omit",
    }).catch(() => undefined);
  }
}
