// Part of `npm run build:check`: the deployable environments of each Worker's configuration must
// declare every secret the Worker needs (`[env.<name>.secrets] required`, so `wrangler deploy`
// refuses to ship a Worker without them: the API Worker's certificate signing key included) and
// none it must not hold (the analysis Worker never gets the signing key), each environment must have its own worker name, and in
// every environment the analysis Worker (wrangler.analysis.toml) must be wired to the API Worker
// (wrangler.toml): its Durable Objects, the same D1 and R2, the analysis queue and its dead letters.
import { unstable_readConfig } from "wrangler";
import { analysisCpuLimitProblems, analysisWiringProblems, configProblems, PROVIDER_VAR, rateLimitProblems, type DeployableConfig, type RateLimitBindingConfig, type WorkerWiring } from "../src/config-check";
import { LOCATION_LIMITS } from "../src/domain/public-limits";
import { API_WORKER_SECRETS, REQUIRED_SECRETS } from "../src/env";

const DEPLOYABLE = ["staging", "production"] as const;
const API = "wrangler.toml";
const ANALYSIS = "wrangler.analysis.toml";

const readConfig = (configPath: string, env?: string) => unstable_readConfig({ config: configPath, ...(env ? { env } : {}) }, { hideWarnings: true });

const deployable = (configPath: string, env?: string): DeployableConfig => {
  const config = readConfig(configPath, env);
  return { name: config.name ?? "", secrets: config.secrets?.required ?? [] };
};

/** The parts of wrangler's resolved configuration the wiring check reads. */
interface ResolvedWiring {
  name?: string;
  d1_databases: { database_id?: string }[];
  r2_buckets: { bucket_name?: string }[];
  queues: { producers?: { binding: string; queue: string }[]; consumers?: { queue: string; dead_letter_queue?: string }[] };
  durable_objects: { bindings: { name: string; class_name: string; script_name?: string }[] };
  ai?: { binding?: string };
  vars?: Record<string, unknown>;
}

const wiring = (configPath: string, env?: string): WorkerWiring => {
  const config = readConfig(configPath, env) as ResolvedWiring;
  return {
    name: config.name ?? "",
    d1DatabaseIds: config.d1_databases.map((d) => d.database_id ?? ""),
    r2Buckets: config.r2_buckets.map((b) => b.bucket_name ?? ""),
    producers: Object.fromEntries((config.queues.producers ?? []).map((p) => [p.binding, p.queue])),
    consumers: (config.queues.consumers ?? []).map((c) => ({ queue: c.queue, ...(c.dead_letter_queue ? { deadLetterQueue: c.dead_letter_queue } : {}) })),
    durableObjects: config.durable_objects.bindings.map((d) => ({ name: d.name, className: d.class_name, ...(d.script_name ? { scriptName: d.script_name } : {}) })),
    providers: {
      ...(config.ai?.binding ? { AI: config.ai.binding } : {}),
      ...Object.fromEntries(Object.entries(config.vars ?? {}).filter(([name]) => PROVIDER_VAR.test(name)).map(([name, value]) => [name, String(value)])),
    },
  };
};

const problems: string[] = [];
// The API Worker signs certificates and Content Credentials; the analysis Worker (untrusted image bytes, WASM decoders) must never hold either key.
const SECRETS: Array<{ configPath: string; required: readonly string[]; forbidden: readonly string[] }> = [
  { configPath: API, required: API_WORKER_SECRETS, forbidden: [] },
  { configPath: ANALYSIS, required: REQUIRED_SECRETS, forbidden: ["CERTIFICATE_SIGNING_KEY", "C2PA_SIGNING_KEY"] },
];
for (const { configPath, required, forbidden } of SECRETS) {
  const configs = { local: deployable(configPath), ...Object.fromEntries(DEPLOYABLE.map((env) => [env, deployable(configPath, env)])) };
  problems.push(...configProblems(configs, DEPLOYABLE, required, forbidden).map((p) => `${configPath}: ${p}`));
}
const ratelimits = (env?: string) => ((readConfig(API, env) as { ratelimits?: RateLimitBindingConfig[] }).ratelimits ?? []);
problems.push(
  ...rateLimitProblems({ local: ratelimits(), ...Object.fromEntries(DEPLOYABLE.map((env) => [env, ratelimits(env)])) }, Object.values(LOCATION_LIMITS)).map(
    (p) => `${API}: ${p}`,
  ),
);
for (const env of [undefined, ...DEPLOYABLE]) problems.push(...analysisWiringProblems(env ?? "local", wiring(API, env), wiring(ANALYSIS, env)));
for (const env of [undefined, ...DEPLOYABLE]) {
  const config = readConfig(ANALYSIS, env) as { limits?: { cpu_ms?: number }; queues: { consumers?: { max_batch_size?: number }[] } };
  problems.push(
    ...analysisCpuLimitProblems(`${ANALYSIS} ${env ?? "local"}`, {
      cpuMs: config.limits?.cpu_ms,
      // Both lanes' consumers run in this Worker: the largest batch bounds an invocation.
      maxBatchSize: Math.max(...(config.queues.consumers ?? []).map((c) => c.max_batch_size ?? 10)),
    }),
  );
}
if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  process.exit(1);
}
console.log(`${API}, ${ANALYSIS}: ${DEPLOYABLE.join(", ")} declare their required secrets; every environment has its own worker names; the analysis Worker is wired to the API Worker in every environment, with a CPU limit covering its batch; the Rate Limiting bindings match the code.`);
