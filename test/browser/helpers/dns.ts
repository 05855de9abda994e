import { inject } from "vitest";

/** Publishes TXT records at `name` in the loopback DNS resolver the Worker asks (test/fakes/doh.ts). */
export async function publishTxt(name: string, values: string[]): Promise<void> {
  const res = await fetch(`${inject("fakesUrl")}/doh/records/${encodeURIComponent(name)}`, { method: "PUT", body: JSON.stringify({ txt: values }) });
  if (res.status !== 204) throw new Error(`the DoH fake answered ${res.status}`);
}
