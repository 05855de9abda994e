import type { I18n } from "./i18n";
import type { Pending, StepView, VerifyView } from "./flow";
import type { Progress } from "./progress";
import type { PendingIntegrity } from "../../src/schemas/capture-integrity";

/** What a step screen may use: the state it renders, and the ways it can move the flow on. */
export interface ScreenContext {
  root: HTMLElement;
  i18n: I18n;
  progress: Progress;
  view(): VerifyView;
  pending(): Pending;
  /**
   * Captures of an evidence step, accepted (as the latest server reply says) plus queued. Read this,
   * not a step object held since the screen was drawn: a queued capture may be delivered meanwhile,
   * leaving the queue and entering the server's count.
   */
  count(stepKey: string): number;
  /** Index of the step on screen. */
  index: number;
  /** Queues a photo or file for a step (hashed and stored on this device first), with the camera's record for a live photo. */
  addCapture(stepKey: string, blob: Blob, contentType: string, capturedAt: number, integrity?: PendingIntegrity): Promise<void>;
  addAnswer(stepKey: string, value: string): Promise<void>;
  /** Leaves this step for the next one (or finishing after the last). */
  next(): void;
  /** Shows this step again (after its counts changed). */
  refresh(): void;
  isLast(): boolean;
}

export type StepScreen<S extends StepView = StepView> = (ctx: ScreenContext, step: S) => void;
