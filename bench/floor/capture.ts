/**
 * The capture floor: what a key-reference capture cannot avoid, and nothing else. The same request
 * as `POST /v1/verifications/{id}/captures` with `{image_key, image_sha256}`, answered by
 *   1. one R2 read of the uploaded bytes, hashed with SHA-256 as they stream;
 *   2. one guarded D1 batch on the project's own tables (the capture slot taken only while there is
 *      one, the capture row inserted only when it was) with the read back in the same batch.
 * No rate limits, no Durable Object, no queue, no validation library, no response schema.
 */
interface FloorEnv {
  DB: D1Database;
  EVIDENCE: R2Bucket;
}

const PATH = /^\/v1\/verifications\/([^/]+)\/captures$/;

function hex(buffer: ArrayBuffer): string {
  return [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export default {
  async fetch(request: Request, env: FloorEnv): Promise<Response> {
    const match = PATH.exec(new URL(request.url).pathname);
    if (request.method !== "POST" || !match) return new Response(null, { status: 404 });
    const id = match[1]!;
    const body = (await request.json()) as { image_key?: string; image_sha256?: string };
    if (!body.image_key?.startsWith(`verifications/${id}/`) || !body.image_sha256) return Response.json({ error: "invalid" }, { status: 400 });

    const object = await env.EVIDENCE.get(body.image_key);
    if (!object) return Response.json({ error: "no bytes" }, { status: 400 });
    const digest = new crypto.DigestStream("SHA-256");
    await object.body.pipeTo(digest);
    const sha256 = hex(await digest.digest);
    if (sha256 !== body.image_sha256) return Response.json({ error: "checksum_mismatch" }, { status: 400 });

    const now = Date.now();
    const captureId = `cap_${crypto.randomUUID().replaceAll("-", "")}`;
    const [taken, , rows, captures] = await env.DB.batch([
      env.DB.prepare(
        "UPDATE verifications SET version = version + 1, captures_count = captures_count + 1, status = 'partially_captured', updated_at = ?1 WHERE id = ?2 AND captures_count < json_extract(config, '$.max_captures')",
      ).bind(now, id),
      env.DB.prepare(
        `INSERT INTO captures (id, verification_id, tenant_id, step_key, step_type, seq, image_key, content_type, size_bytes, sha256, created_at)
         SELECT ?1, id, tenant_id, 'capture_1', 'image', captures_count, ?2, 'image/jpeg', ?3, ?4, ?5 FROM verifications WHERE id = ?6 AND changes() = 1`,
      ).bind(captureId, body.image_key, object.size, sha256, now, id),
      env.DB.prepare("SELECT * FROM verifications WHERE id = ?1").bind(id),
      env.DB.prepare("SELECT id, step_key, created_at FROM captures WHERE verification_id = ?1 ORDER BY seq").bind(id),
    ]);
    if (taken!.meta.changes !== 1) return Response.json({ error: "step_full" }, { status: 409 });
    return Response.json({ ...(rows!.results[0] as object), captures: captures!.results }, { status: 201 });
  },
};
