/*
 * The other tabs of this browser open on the same capture link (BroadcastChannel, same origin and
 * profile only). A tab that goes while another stays open has not left the flow: the end user is in
 * the one still open, so only the last tab to go reports `abandoned`.
 */
type Message = { kind: "hello" | "here" | "bye"; from: string };

export class Peers {
  private readonly channel: BroadcastChannel | null;
  private readonly open = new Set<string>();
  // Names this tab to the others; not a credential.
  private readonly me = typeof crypto.randomUUID === "function" ? crypto.randomUUID() : String(Math.random());

  constructor(verificationId: string) {
    this.channel = typeof BroadcastChannel === "function" ? new BroadcastChannel(`capture-link:${verificationId}`) : null;
    if (!this.channel) return;
    this.channel.onmessage = (event: MessageEvent<Message>) => {
      const { kind, from } = event.data ?? {};
      if (typeof from !== "string") return;
      if (kind === "bye") this.open.delete(from);
      else this.open.add(from);
      if (kind === "hello") this.post("here");
    };
    this.post("hello");
  }

  /** Whether another tab of this link is open. */
  get othersOpen(): boolean {
    return this.open.size > 0;
  }

  /** This tab is going (it may come back from the back-forward cache: `back`). */
  leave(): void {
    this.post("bye");
  }

  /** This tab is shown again after `leave`. */
  back(): void {
    this.post("hello");
  }

  private post(kind: Message["kind"]): void {
    this.channel?.postMessage({ kind, from: this.me } satisfies Message);
  }
}
