import type { VerificationClient } from "../src/index";

/** Polls until the verification settles and reports its outcome (use webhooks to avoid polling). */
export async function waitForVerdict(client: VerificationClient, id: string, timeoutMs = 15 * 60_000) {
  const settled = await client.waitForVerification(id, { intervalMs: 2_000, timeoutMs });
  if (settled.status !== "completed" || !settled.verdict) return { status: settled.status };
  return { status: settled.status, label: settled.verdict.label, score: settled.verdict.score, reason: settled.verdict.reason_code };
}
