/*
 * The layer rule of ARCHITECTURE.md ("Layers"), checked by `npm run check:layers` (part of npm test).
 * A module may import from its own layer and the layers below it, never from a layer above, and no
 * import may close a circle. Type-only imports count (tsPreCompilationDeps): a type names a module
 * as surely as a value, and a circle of types is still a circle for whoever reads the code.
 * Keep LAYERS and EXCEPTIONS in the same order and words as ARCHITECTURE.md.
 */

/** Top to bottom. `path`: folders (trailing slash) or files, relative to the repository. */
const LAYERS = [
  { name: "entry points", path: ["src/index.ts", "src/analysis-worker.ts", "src/app.ts", "src/config-check.ts"] },
  { name: "routes and consumers", path: ["src/routes/", "src/queues/", "src/scheduled.ts", "src/capture-page/", "src/console/", "src/certificate-page/"] },
  { name: "domain services", path: ["src/domain/", "src/analysis/", "src/auth/", "src/providers/"] },
  { name: "object clients", path: ["src/durable-objects/verification-client.ts", "src/durable-objects/rate-limiter-client.ts"] },
  { name: "durable objects", path: ["src/durable-objects/"] },
  { name: "model", path: ["src/model/"] },
  { name: "bindings", path: ["src/db/", "src/storage/", "src/events/"] },
  { name: "contracts", path: ["src/schemas/", "src/analysis/evidence.ts"] },
  { name: "foundation", path: ["src/lib/", "src/env.ts", "src/types/", "src/auth/principal.ts"] },
];

/** Deliberate upward imports, each with its reason (ARCHITECTURE.md lists the same). */
const EXCEPTIONS = [
  {
    from: "src/db/schema.ts",
    to: "src/model/verification/config.ts",
    why: "the verifications table types its JSON config column with the model's VerificationConfig (type-only)",
  },
  {
    from: "src/db/analyses.ts",
    to: "src/analysis/signals/perceptual-hash.ts",
    why: "the near-duplicate lookup computes the band neighbourhoods of its SQL and checks candidates in the same batch (pure arithmetic)",
  },
];

const escapeRegex = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const files = (paths) => paths.filter((p) => !p.endsWith("/"));
const folders = (paths) => paths.filter((p) => p.endsWith("/"));
/** A file placed in a layer of its own is not in its folder's layer. */
const placed = LAYERS.flatMap((l) => files(l.path));

function layerRegex(layer) {
  const parts = files(layer.path).map((f) => `${escapeRegex(f)}$`);
  const dirs = folders(layer.path);
  if (dirs.length > 0) {
    const inside = placed.filter((f) => dirs.some((d) => f.startsWith(d)) && !layer.path.includes(f));
    const not = inside.length > 0 ? `(?!${inside.map((f) => `${escapeRegex(f)}$`).join("|")})` : "";
    parts.push(`${not}(?:${dirs.map(escapeRegex).join("|")})`);
  }
  return `^(?:${parts.join("|")})`;
}

const regexes = LAYERS.map(layerRegex);

const layerRules = LAYERS.slice(1).flatMap((layer, k) => {
  const i = k + 1;
  const above = regexes.slice(0, i).join("|");
  const out = EXCEPTIONS.filter((e) => new RegExp(regexes[i]).test(e.from));
  const rules = [
    {
      name: `layer: ${layer.name}`,
      severity: "error",
      comment: `${layer.name} may not import from ${LAYERS.slice(0, i).map((l) => l.name).join(", ")} (ARCHITECTURE.md "Layers")`,
      from: { path: regexes[i], ...(out.length > 0 ? { pathNot: out.map((e) => `^${escapeRegex(e.from)}$`) } : {}) },
      to: { path: above },
    },
  ];
  for (const e of out) {
    rules.push({
      name: `layer: ${layer.name} (${e.from})`,
      severity: "error",
      comment: `only the written exception: ${e.why}`,
      from: { path: `^${escapeRegex(e.from)}$` },
      to: { path: above, pathNot: `^${escapeRegex(e.to)}$` },
    });
  }
  return rules;
});

module.exports = {
  forbidden: [
    { name: "no-circular", severity: "error", comment: "no import may close a circle", from: {}, to: { circular: true } },
    ...layerRules,
    {
      name: "model is pure",
      severity: "error",
      comment: "the model decides from values: types of rows are fine, but no D1, R2, queue, env or runtime module",
      from: { path: "^src/model/" },
      // Paths as resolved: a package is `node_modules/<name>/…` (a bare `^drizzle-orm` never matched).
      to: { path: "^src/(?:db|storage|events)/|^src/env\\.ts$|^node_modules/drizzle-orm/|^cloudflare:", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "browser code",
      severity: "error",
      comment: "client/ bundles for the browser: from src/ only the model, the wire schemas and the capture page's strings and shell types",
      from: { path: "^client/" },
      to: { path: "^src/", pathNot: "^src/(?:model|schemas|capture-page)/" },
    },
    {
      name: "unresolvable",
      severity: "error",
      comment: "an import the checker cannot follow is an import it cannot check",
      from: { path: "^(?:src|client)/" },
      to: { couldNotResolve: true, pathNot: "^cloudflare:" },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    doNotFollow: { path: "node_modules" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["types", "import", "workerd", "worker", "browser", "default", "require"],
      mainFields: ["types", "module", "main"],
      extensions: [".ts", ".tsx", ".d.ts", ".js", ".mjs", ".json"],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
