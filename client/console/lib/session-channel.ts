/*
 * The session cookie is shared by every tab of the console and names one organisation. When one tab
 * switches organisation, the others would go on showing the old one's name and role while reading and
 * writing the new one's. The switching tab says so on this channel; the others check `/v1/me` and
 * reload into the organisation the session now holds (app.tsx, `useSameSession`).
 */
const channel = typeof BroadcastChannel === "function" ? new BroadcastChannel("console-session") : null;

/** This tab changed what the session holds (another organisation). */
export function announceSessionChanged(): void {
  channel?.postMessage("changed");
}

/** Calls `changed` when another tab announces a change; returns the unsubscribe. */
export function onSessionChanged(changed: () => void): () => void {
  if (!channel) return () => undefined;
  const listener = () => changed();
  channel.addEventListener("message", listener);
  return () => channel.removeEventListener("message", listener);
}
