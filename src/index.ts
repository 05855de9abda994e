import { createApp } from "./app";
import { handleQueue } from "./queues";
import { handleScheduled } from "./scheduled";

export { VerificationObject } from "./durable-objects/verification-object";
export { RateLimiterObject } from "./durable-objects/rate-limiter-object";

const app = createApp();

export default {
  fetch: app.fetch,
  queue: handleQueue,
  scheduled: handleScheduled,
} satisfies ExportedHandler<Env>;
