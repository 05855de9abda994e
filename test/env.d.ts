declare global {
  namespace Cloudflare {
    interface Env {
      TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
      /** Base URL of the loopback fakes (test/fakes/server.ts). */
      FAKES_URL: string;
    }
  }
}
export {};
