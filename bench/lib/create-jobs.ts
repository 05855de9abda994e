/**
 * `POST /v1/verifications` as a tenant's backend sends it, for the create benchmarks: a full API
 * key, a few steps and metadata. The hello-world floor gets the very same request.
 */
import type { Job } from "./measure";
import { API_WORKER, type Runtime } from "./runtime";

export const CREATE_BODY = {
  steps: [
    { key: "front", type: "image", description: "The front of the car", min: 1, max: 2 },
    { key: "odometer", type: "image", description: "The odometer", min: 1, max: 1 },
    { key: "plate", type: "text", description: "Number plate", required: true, validation: { max_length: 10, format: "alphanumeric_id" } },
  ],
  metadata: { order_id: "ord_1234", channel: "bench" },
};

/** An endless supply of create requests to `baseUrl` (the API Worker unless given). */
export function createJobs(rt: Runtime, baseUrl = rt.urls[API_WORKER]!): () => Job {
  const init: RequestInit = {
    method: "POST",
    headers: { Authorization: `Bearer ${rt.secrets.DEV_API_KEY}`, "Content-Type": "application/json" },
    body: JSON.stringify(CREATE_BODY),
  };
  const job: Job = { url: `${baseUrl}/v1/verifications`, init, expect: 201 };
  return () => job;
}
