import { verificationObject } from "../../durable-objects/verification-client";

/** Moves a verification that cannot be analysed to `failed` (a terminal one is left alone). */
export async function failVerification(env: Env, verificationId: string, reason: string): Promise<void> {
  const result = await verificationObject(env, verificationId).fail(verificationId, reason.slice(0, 500));
  if (!result.ok && result.error.code !== "invalid_state" && result.error.code !== "not_found") {
    throw new Error(`fail refused: ${result.error.message}`);
  }
}
