import type { Server } from "node:http";
import { startFakes } from "../fakes/server";

// vitest globalSetup (runs in Node): the loopback fakes live for the whole run.
let server: Server | undefined;

export async function setup(): Promise<void> {
  const port = Number(process.env.FAKES_PORT);
  if (!port) throw new Error("FAKES_PORT is not set (vitest.config.ts chooses it)");
  server = await startFakes(port);
}

export async function teardown(): Promise<void> {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
}
