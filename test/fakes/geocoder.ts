import type { FakeHandler } from "./server";

const calls = new Map<string, number>();

/**
 * Nominatim-compatible `/search?format=jsonv2`. `Eiffel Tower` resolves (rooftop-sized box),
 * `Paris` resolves to a city-sized box, `nowhere` finds nothing, `exploding` is a 500, `garbage` a
 * non-JSON body, `bad point` an out-of-range coordinate. Requests without an identifying User-Agent
 * are refused (403), as the public instance does. `GET /_calls?q=` reports how often a query came.
 */
export const geocoder: FakeHandler = (req) => {
  if (req.path === "/_calls") return { status: 200, body: JSON.stringify({ calls: calls.get(req.query.get("q") ?? "") ?? 0 }) };
  if (req.path !== "/search") return { status: 404, body: "[]" };
  if (!String(req.headers["user-agent"] ?? "").includes("verification-service")) return { status: 403, body: "blocked" };
  if (req.query.get("format") !== "jsonv2") return { status: 400, body: "format" };
  const q = req.query.get("q") ?? "";
  calls.set(q, (calls.get(q) ?? 0) + 1);
  const json = (value: unknown) => ({ status: 200, body: JSON.stringify(value) });
  if (/eiffel tower/i.test(q)) return json([{ lat: "48.8582602", lon: "2.2944990", boundingbox: ["48.8574753", "48.8590465", "2.2933084", "2.2956897"], addresstype: "man_made" }]);
  if (/^paris/i.test(q)) return json([{ lat: "48.8534951", lon: "2.3483915", boundingbox: ["48.8155755", "48.9021560", "2.2241220", "2.4697602"], addresstype: "city" }]);
  if (/nowhere/i.test(q)) return json([]);
  if (/exploding/i.test(q)) return { status: 500, body: "boom" };
  if (/garbage/i.test(q)) return { status: 200, headers: { "content-type": "text/html" }, body: "<html>" };
  if (/bad point/i.test(q)) return json([{ lat: "123.4", lon: "2.0", boundingbox: [] }]);
  return json([]);
};
