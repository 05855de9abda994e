import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { doh } from "./doh";
import { inbox } from "./inbox";
import { siteverify } from "./siteverify";
import { webhookReceivers } from "./webhooks";
import { geocoder } from "./geocoder";
import { vision } from "./vision";
import { webDetection } from "./web-detection";
import { photos } from "./photos";
import { sightengine } from "./sightengine";
import { hive } from "./hive";
import { realityDefender } from "./reality-defender";
import { c2paReference } from "./c2pa-reference";

/**
 * Loopback fakes of the external services the Worker calls (attestation, and whatever provider a
 * capability adds). Runs in Node (vitest globalSetup); the Worker under test reaches it over real
 * HTTP because the provider URLs in vitest.config.ts point here. Each fake is a route table.
 */
export interface FakeRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage["headers"];
  body: Buffer;
}
export interface FakeResponse {
  status: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Delay before answering (for timeout tests). */
  delayMs?: number;
}
export type FakeHandler = (req: FakeRequest) => FakeResponse | Promise<FakeResponse>;

/** Path prefix → handler. Add a capability's fake here. */
const fakes: Record<string, FakeHandler> = {
  "/siteverify": siteverify,
  "/webhooks": webhookReceivers,
  "/inbox": inbox,
  "/doh": doh,
  "/vision": vision,
  "/geocoder": geocoder,
  "/web-detection": webDetection,
  "/photos": photos,
  "/sightengine": sightengine,
  "/hive": hive,
  "/reality-defender": realityDefender,
  "/c2pa-reference": c2paReference,
};

function read(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

export function startFakes(port: number): Promise<Server> {
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const prefix = Object.keys(fakes).find((p) => url.pathname === p || url.pathname.startsWith(`${p}/`));
    if (!prefix) {
      res.writeHead(404).end("no fake here");
      return;
    }
    try {
      const body = await read(req);
      const out = await fakes[prefix]!({ method: req.method ?? "GET", path: url.pathname.slice(prefix.length) || "/", query: url.searchParams, headers: req.headers, body });
      if (out.delayMs) await new Promise((r) => setTimeout(r, out.delayMs));
      res.writeHead(out.status, out.headers ?? { "content-type": "application/json" }).end(out.body ?? "");
    } catch (err) {
      res.writeHead(500).end(String(err));
    }
  });
  return new Promise((resolve) => server.listen(port, "127.0.0.1", () => resolve(server)));
}
