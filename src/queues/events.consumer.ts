import type { DomainEvent } from "../events/messages";
import { enqueueCaptureAnalysis, enqueueSettlement } from "./analysis.consumer";

type Subscriber = (event: DomainEvent, env: Env) => Promise<void>;

/**
 * Who reacts to which domain event. Every subscriber must tolerate duplicates: the outbox re-drive
 * and the queue itself both deliver at least once.
 */
const subscribers: Record<string, Subscriber[]> = {
  "verification.capture.persisted": [enqueueCaptureAnalysis],
  "verification.ready": [enqueueSettlement],
};

export async function handleDomainEvent(event: DomainEvent, env: Env): Promise<void> {
  for (const subscriber of subscribers[event.name] ?? []) await subscriber(event, env);
}
