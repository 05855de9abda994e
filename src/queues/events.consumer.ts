import type { DomainEvent } from "../events/messages";

type Subscriber = (event: DomainEvent, env: Env) => Promise<void>;

/**
 * Who reacts to which domain event. Every subscriber must tolerate duplicates: the outbox re-drive
 * and the queue itself both deliver at least once.
 */
const subscribers: Record<string, Subscriber[]> = {};

export async function handleDomainEvent(event: DomainEvent, env: Env): Promise<void> {
  for (const subscriber of subscribers[event.name] ?? []) await subscriber(event, env);
}
