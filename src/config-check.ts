import { REQUIRED_SECRETS } from "./env";
import type { LocationRateLimitRule } from "./domain/public-limits";

/** What `npm run build:check` reads from wrangler.toml per environment. */
export interface DeployableConfig {
  name: string;
  /** `secrets.required` */
  secrets: readonly string[];
}

/**
 * Problems of a wrangler configuration (keyed by environment, `local` for the top level): a
 * deployable environment that does not declare a `required` secret or declares a `forbidden` one
 * (a secret that Worker must never hold), or two environments sharing a worker name (a
 * `wrangler deploy` of the local config would otherwise overwrite production).
 */
export function configProblems(
  configs: Record<string, DeployableConfig>,
  deployable: readonly string[],
  required: readonly string[] = REQUIRED_SECRETS,
  forbidden: readonly string[] = [],
): string[] {
  const problems: string[] = [];
  for (const env of deployable) {
    const config = configs[env];
    if (!config) {
      problems.push(`environment "${env}" is missing`);
      continue;
    }
    const missing = required.filter((name) => !config.secrets.includes(name));
    if (missing.length > 0) problems.push(`[env.${env}.secrets] required must list ${missing.join(", ")}`);
    const held = forbidden.filter((name) => config.secrets.includes(name));
    if (held.length > 0) problems.push(`[env.${env}.secrets] must not list ${held.join(", ")}: this Worker never needs it`);
  }
  const byName = new Map<string, string[]>();
  for (const [env, config] of Object.entries(configs)) byName.set(config.name, [...(byName.get(config.name) ?? []), env]);
  for (const [name, envs] of byName) {
    if (envs.length > 1) problems.push(`environments ${envs.join(", ")} share the worker name "${name}"`);
  }
  return problems;
}

/** The producer bindings of the analysis lanes (fast, bulk). */
const ANALYSIS_LANES = ["ANALYSIS_QUEUE", "ANALYSIS_BULK_QUEUE"] as const;

/** What `npm run build:check` compares between the API Worker's and the analysis Worker's configurations. */
export interface WorkerWiring {
  name: string;
  d1DatabaseIds: string[];
  r2Buckets: string[];
  /** queue producer binding → queue */
  producers: Record<string, string>;
  /** queues this Worker consumes, with their dead-letter queue */
  consumers: { queue: string; deadLetterQueue?: string }[];
  durableObjects: { name: string; className: string; scriptName?: string }[];
  /**
   * What selects the analysis's providers (src/providers/analysis.ts) in the configuration file: the
   * `AI` binding and the provider vars. Secrets are set per Worker and cannot be compared here.
   */
  providers?: Record<string, string>;
}

/** Vars that choose an analysis provider: both Workers must agree on them (providers/analysis.ts). */
export const PROVIDER_VAR = /^(VISION_|GEOCODER_|GOOGLE_VISION_|SIGHTENGINE_|HIVE_|REALITY_DEFENDER_|AI_DETECTION_PROVIDER$|C2PA_TRUSTED_SIGNERS$|C2PA_TRUST_ANCHORS$|C2PA_TRUST_LIST$)/;

/**
 * Problems wiring the analysis Worker to the API Worker in one environment: it must reach the API
 * Worker's own Durable Object classes, use the same D1 and R2, and be the only consumer of the queues
 * the API Worker produces analysis jobs to (both lanes, events/analysis-jobs.ts), whose dead letters
 * the API Worker records.
 */
export function analysisWiringProblems(env: string, api: WorkerWiring, analysis: WorkerWiring): string[] {
  const problems: string[] = [];
  const hosted = new Set(api.durableObjects.filter((d) => !d.scriptName).map((d) => d.className));
  for (const d of analysis.durableObjects) {
    if (d.scriptName !== api.name) problems.push(`${env}: analysis binding ${d.name} must name script_name "${api.name}" (got ${JSON.stringify(d.scriptName)})`);
    if (!hosted.has(d.className)) problems.push(`${env}: analysis binding ${d.name} names class ${d.className}, which ${api.name} does not host`);
  }
  for (const id of analysis.d1DatabaseIds) if (!api.d1DatabaseIds.includes(id)) problems.push(`${env}: analysis D1 ${id} is not the API Worker's`);
  for (const bucket of analysis.r2Buckets) if (!api.r2Buckets.includes(bucket)) problems.push(`${env}: analysis R2 bucket ${bucket} is not the API Worker's`);
  for (const binding of ANALYSIS_LANES) {
    const jobs = api.producers[binding];
    if (!jobs) {
      problems.push(`${env}: the API Worker has no ${binding} producer`);
      continue;
    }
    if (!analysis.consumers.some((c) => c.queue === jobs)) problems.push(`${env}: the analysis Worker does not consume ${jobs}`);
    if (api.consumers.some((c) => c.queue === jobs)) problems.push(`${env}: the API Worker must not consume ${jobs} (the analysis Worker does)`);
  }
  for (const c of analysis.consumers) {
    if (!c.deadLetterQueue) problems.push(`${env}: the analysis consumer of ${c.queue} has no dead-letter queue`);
    else if (!api.consumers.some((a) => a.queue === c.deadLetterQueue)) problems.push(`${env}: nobody records the dead letters of ${c.queue} (${c.deadLetterQueue})`);
  }
  // The API Worker's capabilities (and creation checks) must describe what the analysis Worker runs.
  const apiProviders = api.providers ?? {};
  const analysisProviders = analysis.providers ?? {};
  for (const key of [...new Set([...Object.keys(apiProviders), ...Object.keys(analysisProviders)])].sort()) {
    if ((apiProviders[key] ?? "") !== (analysisProviders[key] ?? "")) {
      problems.push(`${env}: the two Workers configure the analysis provider ${key} differently (the capabilities would not describe what the analysis runs)`);
    }
  }
  return problems;
}

/** A `[[ratelimits]]` entry as wrangler resolves it. */
export interface RateLimitBindingConfig {
  name: string;
  namespace_id: string;
  simple: { limit: number; period: number };
}

/**
 * Problems of the Rate Limiting bindings across environments (keyed like `configProblems`): every
 * per-location rule must be bound with the limit and period the code states (the code cannot read
 * them from the binding), no binding may be left without a rule (a limit the code no longer applies
 * there), and no namespace may serve two environments (namespaces are account-wide:
 * staging traffic would spend production's budget).
 */
export function rateLimitProblems(configs: Record<string, readonly RateLimitBindingConfig[]>, rules: readonly LocationRateLimitRule[]): string[] {
  const problems: string[] = [];
  const owner = new Map<string, string>();
  for (const [env, bindings] of Object.entries(configs)) {
    for (const rule of rules) {
      const bound = bindings.find((b) => b.name === rule.binding);
      if (!bound) problems.push(`${env}: rate limit binding ${rule.binding} is missing`);
      else if (bound.simple.limit !== rule.limit || bound.simple.period !== rule.periodSeconds) {
        problems.push(`${env}: ${rule.binding} is ${bound.simple.limit} per ${bound.simple.period} s, the code says ${rule.limit} per ${rule.periodSeconds} s`);
      }
    }
    for (const b of bindings) {
      if (!rules.some((rule) => rule.binding === b.name)) problems.push(`${env}: rate limit binding ${b.name} is declared but the code has no rule for it`);
      const other = owner.get(b.namespace_id);
      if (other && other !== env) problems.push(`rate limit namespace ${b.namespace_id} is used by ${other} and ${env}`);
      owner.set(b.namespace_id, env);
    }
  }
  return problems;
}

/**
 * The CPU one analysis job may take (on Cloudflare, `limits.cpu_ms` counts a whole invocation, and
 * the analysis consumer runs its batch's jobs one after the other). Chosen from the worst accepted
 * input measured: the whole analysis of a 50 MP grid HEIC photo, 4 980 ms of workerd CPU on the bench
 * machine (bench/RESULTS.md, run of 2026-11-25), the expensive adversarial inputs the header check accepts all below
 * it (bench/PERF-RESULTS.md, `npm run bench:fuzz`), with a margin of about 2× for slower hardware.
 * A job beyond it is not a photo: the invocation is ended, retried, then dead-lettered and its
 * verification failed (test/integration/analysis-cpu-limit.test.ts).
 */
export const ANALYSIS_JOB_CPU_MS = 10_000;

/** What Cloudflare allows `limits.cpu_ms` to be (5 minutes). */
export const PLATFORM_MAX_CPU_MS = 300_000;

export interface AnalysisCpuConfig {
  cpuMs: number | undefined;
  maxBatchSize: number | undefined;
}

/**
 * Problems of the analysis Worker's CPU limit in one environment: it must be set, cover a full batch
 * of worst-case jobs (max_batch_size × ANALYSIS_JOB_CPU_MS) and stay within the platform's maximum.
 */
export function analysisCpuLimitProblems(env: string, config: AnalysisCpuConfig): string[] {
  const problems: string[] = [];
  const batch = config.maxBatchSize ?? 10;
  if (config.cpuMs === undefined) problems.push(`${env}: the analysis Worker has no limits.cpu_ms`);
  else if (config.cpuMs < batch * ANALYSIS_JOB_CPU_MS) {
    problems.push(`${env}: limits.cpu_ms ${config.cpuMs} is below a batch of ${batch} analysis jobs of ${ANALYSIS_JOB_CPU_MS} ms each`);
  } else if (config.cpuMs > PLATFORM_MAX_CPU_MS) problems.push(`${env}: limits.cpu_ms ${config.cpuMs} is above the platform's ${PLATFORM_MAX_CPU_MS}`);
  return problems;
}
