import type { FakeHandler } from "./server";

/**
 * A DNS-over-HTTPS JSON resolver. Names are answered by their suffix: `*.loopback.test` →
 * 127.0.0.1, `*.private.test` → 10.1.2.3, `*.linklocal.test` → fe80::1 (AAAA), `*.metadata.test` →
 * 169.254.169.254 (via a CNAME), `*.nxdomain.test` → NXDOMAIN, `*.broken.test` → 500; any other
 * name → 93.184.215.14 (public). `*.rebind.test` answers like a DNS-rebinding attacker's name: its
 * first A query a public address, every later one 10.1.2.3.
 */
const table: Array<[suffix: string, type: "A" | "AAAA", data: string]> = [
  [".loopback.test", "A", "127.0.0.1"],
  [".private.test", "A", "10.1.2.3"],
  [".linklocal.test", "AAAA", "fe80::1"],
  [".metadata.test", "A", "169.254.169.254"],
];

/** A queries answered per `*.rebind.test` name. */
const rebound = new Map<string, number>();

/**
 * TXT records a test publishes (a tenant proving a domain): `PUT /doh/records/<name>` with
 * `{"txt": ["…"]}` publishes them, with `{"fail": true}` makes the resolver answer 500 for that name;
 * `DELETE /doh/records/<name>` removes it (the name then has no TXT record). A TXT query for any
 * other name answers no record.
 */
const published = new Map<string, { txt: string[] } | { fail: true }>();

function records(req: Parameters<FakeHandler>[0]) {
  const name = decodeURIComponent(req.path.slice("/records/".length)).toLowerCase();
  if (req.method === "DELETE") published.delete(name);
  else published.set(name, JSON.parse(req.body.toString("utf8")) as { txt: string[] } | { fail: true });
  return { status: 204 };
}

const quoted = (value: string) => `"${value.replace(/["\\]/g, (c) => `\\${c}`)}"`;

export const doh: FakeHandler = (req) => {
  if (req.path.startsWith("/records/")) return records(req);
  const name = (req.query.get("name") ?? "").toLowerCase();
  const type = req.query.get("type");
  if (type === "TXT") {
    const entry = published.get(name.replace(/\.$/, ""));
    if (entry && "fail" in entry) return { status: 500, body: "resolver down" };
    // As Cloudflare's resolver writes TXT data: each character-string quoted (a long value split in two).
    const answers = (entry?.txt ?? []).map((value) => ({ name, type: 16, data: value.length > 40 ? `${quoted(value.slice(0, 40))} ${quoted(value.slice(40))}` : quoted(value) }));
    return { status: 200, headers: { "content-type": "application/dns-json" }, body: JSON.stringify({ Status: 0, Answer: answers }) };
  }
  if (name.endsWith(".rebind.test") && type === "A") {
    const seen = rebound.get(name) ?? 0;
    rebound.set(name, seen + 1);
    const data = seen === 0 ? "93.184.215.14" : "10.1.2.3";
    return { status: 200, headers: { "content-type": "application/dns-json" }, body: JSON.stringify({ Status: 0, Answer: [{ name, type: 1, data }] }) };
  }
  if (name.endsWith(".broken.test")) return { status: 500, body: "resolver down" };
  if (name.endsWith(".nxdomain.test")) return { status: 200, body: JSON.stringify({ Status: 3 }) };
  const hit = table.find(([suffix]) => name.endsWith(suffix));
  const answers: Array<{ name: string; type: number; data: string }> = [];
  if (hit?.[0] === ".metadata.test") answers.push({ name, type: 5, data: "metadata.cloud.example." });
  if (hit) {
    if (hit[1] === type) answers.push({ name, type: type === "A" ? 1 : 28, data: hit[2] });
  } else if (type === "A") {
    answers.push({ name, type: 1, data: "93.184.215.14" });
  }
  return { status: 200, headers: { "content-type": "application/dns-json" }, body: JSON.stringify({ Status: 0, Answer: answers }) };
};
