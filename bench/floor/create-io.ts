/**
 * The create I/O floor: what a create cannot avoid, and nothing else. The same request as
 * `POST /v1/verifications`, answered by
 *   1. one D1 read resolving the bearer key (SHA-256 of the key, as the API Worker stores it);
 *   2. one D1 batch inserting the verification row and its `verification.created` event.
 * No validation library, no Durable Object, no queue, no response schema. The ratio against it says
 * how much of the gap to the hello-world floor is the service and how much is the storage's write.
 */
interface FloorEnv {
  DB: D1Database;
}

function hex(buffer: ArrayBuffer): string {
  return [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export default {
  async fetch(request: Request, env: FloorEnv): Promise<Response> {
    if (request.method !== "POST" || new URL(request.url).pathname !== "/v1/verifications") return new Response(null, { status: 404 });
    const token = /^Bearer (\S+)$/.exec(request.headers.get("Authorization") ?? "")?.[1] ?? "";
    const keyHash = hex(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token)));
    const key = await env.DB.prepare("SELECT tenant_id FROM api_keys WHERE key_hash = ?1 AND revoked_at IS NULL").bind(keyHash).first<{ tenant_id: string }>();
    if (!key) return Response.json({ error: "unauthorized" }, { status: 401 });
    const body = (await request.json()) as Record<string, unknown>;
    const now = Date.now();
    const id = `vfy_${crypto.randomUUID().replaceAll("-", "")}`;
    await env.DB.batch([
      env.DB.prepare(
        "INSERT INTO verifications (id, tenant_id, status, version, config, seal_enabled, created_at, updated_at, expires_at, captures_count) VALUES (?1, ?2, 'pending', 1, ?3, 1, ?4, ?4, ?5, 0)",
      ).bind(id, key.tenant_id, JSON.stringify(body), now, now + 604_800_000),
      env.DB.prepare("INSERT INTO events (id, verification_id, tenant_id, name, occurred_at) VALUES (?1, ?2, ?3, 'verification.created', ?4)").bind(
        `evt_${crypto.randomUUID().replaceAll("-", "")}`,
        id,
        key.tenant_id,
        now,
      ),
    ]);
    return Response.json({ id, status: "pending" }, { status: 201 });
  },
};
