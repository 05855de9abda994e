import Ajv2020, { type ErrorObject, type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";

/*
 * Checks HTTP exchanges against the OpenAPI document the Worker serves: the operation (path and
 * method) is documented, the status is documented for it, the media type is documented for that
 * status, and a JSON body validates against the schema with Ajv (JSON Schema 2020-12, formats on).
 *
 * Stricter than the document on one point: a response object may carry no property the document
 * does not name. Every object schema without `additionalProperties` is checked as if it said
 * `unevaluatedProperties: false`, so an undocumented field fails here even though a client reading
 * the document must tolerate additions.
 *
 * Plain TypeScript without Workers imports: the workerd suite (test/helpers/api.ts) and the browser
 * suite in Node (test/browser/helpers/api.ts) both use it.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

export interface Exchange {
  method: string;
  url: string;
  status: number;
  headers: Headers;
  /** The response body as received (empty string when there is none). */
  body: string;
}

export class ContractViolation extends Error {
  override name = "ContractViolation";
}

/**
 * Surfaces the document leaves out on purpose (not API operations), by path pattern. Anything else
 * that is not documented must be the standard 404 or 405 error.
 */
const UNDOCUMENTED_SURFACES: Array<{ path: RegExp; why: string }> = [
  { path: /^\/$/, why: "service index (links to /docs and the document)" },
  { path: /^\/docs$/, why: "the rendered reference (HTML)" },
  { path: /^\/docs\//, why: "the reference page's static assets (Swagger UI, bundled from swagger-ui-dist)" },
  { path: /^\/v1\/openapi\.json$/, why: "the document itself" },
  { path: /^\/c\/[^/]+$/, why: "the capture page's HTML shell (capture_url)" },
  { path: /^\/assets\//, why: "the capture page's and the console's static bundles" },
  { path: /^\/console(\/.*)?$/, why: "the operator console's HTML shell (a client of this document)" },
  { path: /^\/v1\/dev\/outbox$/, why: "local development only (404 when deployed)" },
];

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
/** OpenAPI's Schema Object keywords that JSON Schema does not define (annotations only). */
const OPENAPI_SCHEMA_KEYWORDS = ["discriminator", "xml", "externalDocs", "example"];

interface Operation {
  key: string;
  path: string;
  pattern: RegExp;
  /** Literal segments, to prefer `/a/b` over `/a/{x}` when both match. */
  literals: number;
  method: string;
  responses: JsonObject;
}

export interface Contract {
  /** Throws a ContractViolation describing every way the exchange departs from the document. */
  check(exchange: Exchange): void;
  /** Checks a webhook body the service sent against the document's `webhooks` (by name when several). */
  checkWebhook(body: string, name?: string): void;
}

export function createContract(document: JsonObject): Contract {
  const schemas = ((document.components as JsonObject | undefined)?.schemas ?? {}) as JsonObject;
  const operations = collectOperations(document);
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
  addFormats(ajv);
  for (const keyword of OPENAPI_SCHEMA_KEYWORDS) ajv.addKeyword({ keyword });
  const compiled = new Map<string, ValidateFunction>();

  const validatorFor = (cacheKey: string, schema: Json): ValidateFunction => {
    let validate = compiled.get(cacheKey);
    if (!validate) {
      validate = ajv.compile(closeObjects(dereference(schema, schemas, [])) as object);
      compiled.set(cacheKey, validate);
    }
    return validate;
  };

  const errorSchema = (): Json => {
    if (!schemas.Error) throw new ContractViolation("the document has no components.schemas.Error (the standard error body)");
    return { $ref: "#/components/schemas/Error" };
  };

  return {
    check(exchange) {
      const url = new URL(exchange.url);
      const method = exchange.method.toUpperCase();
      const where = `${method} ${url.pathname} → ${exchange.status}`;
      const fail = (problem: string): never => {
        throw new ContractViolation(`${where}: ${problem}\nbody: ${exchange.body.slice(0, 2000)}`);
      };

      // CORS preflights are answered by middleware for every route; they are not operations.
      if (method === "OPTIONS" && exchange.headers.has("access-control-allow-methods")) return;

      const operation = findOperation(operations, method, url.pathname);
      if (!operation) {
        if (UNDOCUMENTED_SURFACES.some((s) => s.path.test(url.pathname))) return;
        const knownPath = operations.some((op) => op.pattern.test(url.pathname));
        const expected = knownPath ? 405 : exchange.status === 405 ? 405 : 404;
        if (exchange.status !== expected) {
          fail(
            knownPath
              ? `${method} is not documented for this path, so the answer must be 405 method_not_allowed`
              : "no documented operation has this path, so the answer must be 404 not_found (or 405 for an undocumented route)",
          );
        }
        if (expected === 405 && !exchange.headers.get("allow")) fail("a 405 must list the allowed methods in Allow");
        const body = parseJsonBody(exchange, fail);
        assertValid(validatorFor("#Error", errorSchema()), body, fail, "the standard error body");
        const code = (body as { error: { code: string } }).error.code;
        if (code !== (expected === 405 ? "method_not_allowed" : "not_found")) fail(`unexpected error code ${code}`);
        return;
      }

      const statusKey = [String(exchange.status), `${String(exchange.status)[0]}XX`, "default"].find((k) => k in operation.responses);
      if (!statusKey) fail(`status ${exchange.status} is not documented for ${operation.key} (documented: ${Object.keys(operation.responses).join(", ")})`);
      const response = operation.responses[statusKey!] as JsonObject;
      const content = response.content as JsonObject | undefined;
      const isHead = method === "HEAD";

      if (exchange.body === "" && (isHead || !content || Object.keys(content).length === 0)) return;
      if (!content || Object.keys(content).length === 0) fail(`${operation.key} documents no body for ${statusKey}, but one was sent`);
      if (exchange.body === "" && !isHead) fail(`${operation.key} documents a body for ${statusKey}, but none was sent`);

      const mediaType = (exchange.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
      const documented = Object.keys(content!).find((m) => m.toLowerCase() === mediaType);
      if (!documented) fail(`media type "${mediaType}" is not documented for ${operation.key} ${statusKey} (documented: ${Object.keys(content!).join(", ")})`);
      if (!isJsonMediaType(mediaType)) return;

      const schema = (content![documented!] as JsonObject).schema;
      const body = parseJsonBody(exchange, fail);
      if (schema === undefined) return;
      assertValid(validatorFor(`${operation.key} ${statusKey} ${documented}`, schema), body, fail, `the ${statusKey} schema of ${operation.key}`);
    },

    checkWebhook(payload, name) {
      const webhooks = (document.webhooks ?? {}) as JsonObject;
      const names = Object.keys(webhooks);
      const chosen = name ?? (names.length === 1 ? names[0] : undefined);
      const fail = (problem: string): never => {
        throw new ContractViolation(`webhook ${chosen ?? "(unnamed)"}: ${problem}\nbody: ${payload.slice(0, 2000)}`);
      };
      if (!chosen || !(chosen in webhooks)) return fail(`name one of the documented webhooks: ${names.join(", ") || "(none)"}`);
      const post = (webhooks[chosen] as JsonObject).post as JsonObject | undefined;
      const schema = ((((post?.requestBody as JsonObject | undefined)?.content as JsonObject | undefined)?.["application/json"]) as JsonObject | undefined)?.schema;
      if (schema === undefined) fail("the document gives no JSON body schema for it");
      let body: Json;
      try {
        body = JSON.parse(payload) as Json;
      } catch {
        return fail("the body is not valid JSON");
      }
      assertValid(validatorFor(`webhook ${chosen}`, schema!), body, fail, `the body schema of webhook ${chosen}`);
    },
  };
}

function collectOperations(document: JsonObject): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries((document.paths ?? {}) as JsonObject)) {
    const segments = path.split("/");
    const pattern = new RegExp(
      `^${segments.map((s) => (/^\{[^}]+\}$/.test(s) ? "[^/]+" : s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))).join("/")}$`,
    );
    const literals = segments.filter((s) => s !== "" && !s.startsWith("{")).length;
    for (const method of METHODS) {
      const op = (item as JsonObject)[method] as JsonObject | undefined;
      if (!op) continue;
      out.push({ key: `${method.toUpperCase()} ${path}`, path, pattern, literals, method: method.toUpperCase(), responses: (op.responses ?? {}) as JsonObject });
    }
  }
  return out.sort((a, b) => b.literals - a.literals);
}

function findOperation(operations: Operation[], method: string, pathname: string): Operation | undefined {
  const exact = operations.find((op) => op.method === method && op.pattern.test(pathname));
  // HEAD is answered by the GET handler (without the body) unless documented on its own.
  return exact ?? (method === "HEAD" ? operations.find((op) => op.method === "GET" && op.pattern.test(pathname)) : undefined);
}

function isJsonMediaType(mediaType: string): boolean {
  return mediaType === "application/json" || mediaType.endsWith("+json");
}

function parseJsonBody(exchange: Exchange, fail: (problem: string) => never): Json {
  try {
    return JSON.parse(exchange.body) as Json;
  } catch {
    return fail("the body is not valid JSON");
  }
}

function assertValid(validate: ValidateFunction, body: Json, fail: (problem: string) => never, what: string): void {
  if (validate(body)) return;
  fail(`the body does not match ${what}:\n${formatErrors(validate.errors ?? [])}`);
}

function formatErrors(errors: ErrorObject[]): string {
  return errors
    .map((e) => {
      const at = e.instancePath || "(root)";
      const extra =
        e.keyword === "unevaluatedProperties"
          ? ` (undocumented property "${(e.params as { unevaluatedProperty: string }).unevaluatedProperty}")`
          : e.keyword === "additionalProperties"
            ? ` ("${(e.params as { additionalProperty: string }).additionalProperty}")`
            : "";
      return `  - ${at} ${e.message ?? e.keyword}${extra} [${e.schemaPath}]`;
    })
    .join("\n");
}

/** Inlines `#/components/schemas/*` references (the document's schemas are not recursive). */
function dereference(schema: Json, components: JsonObject, seen: string[]): Json {
  if (Array.isArray(schema)) return schema.map((s) => dereference(s, components, seen));
  if (schema === null || typeof schema !== "object") return schema;
  const ref = schema.$ref;
  if (typeof ref === "string") {
    const name = /^#\/components\/schemas\/(.+)$/.exec(ref)?.[1];
    if (!name || !(name in components)) throw new ContractViolation(`unresolvable $ref ${ref}`);
    if (seen.includes(name)) throw new ContractViolation(`recursive schema ${[...seen, name].join(" → ")}: the contract checker does not inline cycles`);
    const target = dereference(components[name]!, components, [...seen, name]);
    const { $ref: _ref, ...siblings } = schema;
    return Object.keys(siblings).length === 0 ? target : { allOf: [target], ...(dereference(siblings, components, seen) as JsonObject) };
  }
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    // `properties` maps names to schemas; `example`/`examples` are data, never schemas.
    out[key] = key === "example" || key === "examples" || key === "enum" || key === "const" ? value : dereference(value, components, seen);
  }
  return out;
}

function isObjectSchema(schema: JsonObject): boolean {
  const type = schema.type;
  return type === "object" || (Array.isArray(type) && type.includes("object")) || (type === undefined && "properties" in schema);
}

const OPEN_KEYWORDS = ["additionalProperties", "unevaluatedProperties", "patternProperties"];

/**
 * Adds `unevaluatedProperties: false` to every object schema that does not say what other
 * properties may appear. Members of an `allOf` are left open, and the `allOf` itself is closed, so
 * properties named by any member count as documented.
 */
function closeObjects(schema: Json, inAllOf = false): Json {
  if (Array.isArray(schema)) return schema.map((s) => closeObjects(s));
  if (schema === null || typeof schema !== "object") return schema;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "example" || key === "examples" || key === "enum" || key === "const") out[key] = value;
    else if (key === "allOf" && Array.isArray(value)) out[key] = value.map((s) => closeObjects(s, true));
    else if (key === "properties" && value && typeof value === "object" && !Array.isArray(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, s]) => [name, closeObjects(s)]));
    } else out[key] = closeObjects(value);
  }
  const composesObjects = Array.isArray(schema.allOf) && schema.allOf.some((s) => s !== null && typeof s === "object" && !Array.isArray(s) && isObjectSchema(s));
  if (!inAllOf && (isObjectSchema(schema) || composesObjects) && !OPEN_KEYWORDS.some((k) => k in schema)) {
    out.unevaluatedProperties = false;
    // Ajv's strictTypes wants object keywords next to an object type; allOf members say it already.
    if (out.type === undefined) out.type = "object";
  }
  return out;
}
