import type { Server } from "node:http";
import type { OAuth2Server } from "oauth2-mock-server";
import { startOidcProvider } from "../fakes/oidc";
import { startFakes } from "../fakes/server";

// vitest globalSetup (runs in Node): the loopback fakes live for the whole run.
let server: Server | undefined;
let oidc: OAuth2Server | undefined;

export async function setup(): Promise<void> {
  const port = Number(process.env.FAKES_PORT);
  if (!port) throw new Error("FAKES_PORT is not set (vitest.config.ts chooses it)");
  server = await startFakes(port);
  oidc = await startOidcProvider(Number(process.env.OIDC_PORT));
}

export async function teardown(): Promise<void> {
  await oidc?.stop();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
}
