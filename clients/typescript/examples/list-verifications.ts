import type { VerificationClient } from "../src/index";

/** Claim ids of every completed verification created since `since`, following next_cursor page by page. */
export async function completedClaimsSince(client: VerificationClient, since: Date, pageSize = 50): Promise<string[]> {
  const claims: string[] = [];
  for await (const verification of client.listVerifications({ status: "completed", created_gte: since.toISOString(), limit: pageSize })) {
    claims.push(verification.config.metadata?.claim_id ?? verification.id);
  }
  return claims;
}
