/*
 * Every upper bound the API's input schemas enforce, read from the OpenAPI document (the document is
 * generated from the zod schemas that validate, so this is what the service refuses above): request
 * bodies and parameters of every operation, each field by its dotted path (`steps[].key`,
 * `metadata{}` for a map's values, `metadata{key}` for its keys, `query:limit`, `header:idempotency-key`).
 *
 * docs/api.md lists them between `<!-- input-limits:start -->` and `<!-- input-limits:end -->`;
 * `npm run gen:client` rewrites that table and test/integration/input-limits-docs.test.ts fails when it
 * differs from what the served document enforces.
 */

type Schema = { [key: string]: unknown };

export interface InputLimit {
  /** The field: a dotted path, `[]` for an array's items, `{}` for a map's values, `{key}` for its keys, `in:name` for a parameter. */
  field: string;
  /** `maxLength` (characters), `maxItems`, `maximum` (inclusive) or `exclusiveMaximum`, `maxProperties`. */
  kind: string;
  /** The bound, every value when operations differ (ascending). */
  values: number[];
}

const KINDS = ["maxLength", "maxItems", "maximum", "exclusiveMaximum", "maxProperties"] as const;

export function inputLimits(document: Schema): InputLimit[] {
  const schemas = ((document.components as Schema | undefined)?.schemas ?? {}) as Record<string, Schema>;
  const found = new Map<string, Set<number>>();
  const walk = (node: unknown, path: string, refs: Set<string>): void => {
    if (!node || typeof node !== "object") return;
    const n = node as Schema;
    if (typeof n.$ref === "string") {
      const name = n.$ref.split("/").pop()!;
      if (refs.has(name)) return;
      return walk(schemas[name], path, new Set([...refs, name]));
    }
    for (const kind of KINDS) {
      if (typeof n[kind] !== "number") continue;
      const key = `${path}\t${kind}`;
      found.set(key, (found.get(key) ?? new Set()).add(n[kind] as number));
    }
    for (const key of ["anyOf", "oneOf", "allOf"]) for (const option of (n[key] as unknown[] | undefined) ?? []) walk(option, path, refs);
    for (const [name, property] of Object.entries((n.properties as Record<string, unknown> | undefined) ?? {})) walk(property, path ? `${path}.${name}` : name, refs);
    if (n.items) walk(n.items, `${path}[]`, refs);
    if (n.additionalProperties && typeof n.additionalProperties === "object") walk(n.additionalProperties, `${path}{}`, refs);
    if (n.propertyNames && typeof n.propertyNames === "object") walk(n.propertyNames, `${path}{key}`, refs);
  };
  for (const operations of Object.values((document.paths ?? {}) as Record<string, Record<string, unknown>>)) {
    for (const operation of Object.values(operations)) {
      if (!operation || typeof operation !== "object") continue;
      const op = operation as { requestBody?: { content?: Record<string, { schema?: unknown }> }; parameters?: Array<{ in: string; name: string; schema?: unknown }> };
      for (const media of Object.values(op.requestBody?.content ?? {})) walk(media.schema, "", new Set());
      for (const parameter of op.parameters ?? []) walk(parameter.schema, `${parameter.in}:${parameter.name}`, new Set());
    }
  }
  return [...found]
    .map(([key, values]) => {
      const [field, kind] = key.split("\t") as [string, string];
      return { field, kind, values: [...values].sort((a, b) => a - b) };
    })
    .sort((a, b) => (a.field === b.field ? a.kind.localeCompare(b.kind) : a.field < b.field ? -1 : 1));
}

export const LIMITS_START = "<!-- input-limits:start -->";
export const LIMITS_END = "<!-- input-limits:end -->";

/** The table docs/api.md holds between the markers. */
export function limitsTable(limits: InputLimit[]): string {
  const rows = limits.map((l) => `| \`${l.field}\` | ${l.kind} | ${l.values.join(", ")} |`);
  return ["| field | bound | at most |", "|---|---|---:|", ...rows].join("\n");
}

/** The table between the markers of a document's text (null when the markers are missing). */
export function tableIn(text: string): string | null {
  const start = text.indexOf(LIMITS_START);
  const end = text.indexOf(LIMITS_END);
  if (start < 0 || end < start) return null;
  return text.slice(start + LIMITS_START.length, end).trim();
}

/** `text` with the table between the markers replaced. */
export function withTable(text: string, table: string): string {
  const start = text.indexOf(LIMITS_START);
  const end = text.indexOf(LIMITS_END);
  if (start < 0 || end < start) throw new Error(`docs/api.md lacks ${LIMITS_START} … ${LIMITS_END}`);
  return `${text.slice(0, start + LIMITS_START.length)}\n${table}\n${text.slice(end)}`;
}
