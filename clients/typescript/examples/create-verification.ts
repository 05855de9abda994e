import type { Verification, VerificationClient } from "../src/index";

/**
 * A roof-damage claim: two photos and the policy number. The idempotency key makes a retry after a
 * timeout return the same verification instead of creating a second one.
 */
export async function createRoofClaim(client: VerificationClient, claimId: string, webhookUrl: string): Promise<Verification> {
  const verification = await client.createVerification(
    {
      steps: [
        { key: "roof", type: "image", description: "The damaged part of the roof", min: 1, max: 2 },
        { key: "policy", type: "text", description: "Policy number", required: true, validation: { max_length: 12, format: "alphanumeric_id" } },
      ],
      webhook_url: webhookUrl,
      metadata: { claim_id: claimId },
    },
    { idempotencyKey: `claim-${claimId}` },
  );
  // Send verification.capture_url to the claimant (SMS, email, your app).
  return verification;
}
