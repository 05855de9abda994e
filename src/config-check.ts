import { REQUIRED_SECRETS } from "./env";

/** What `npm run build:check` reads from wrangler.toml per environment. */
export interface DeployableConfig {
  name: string;
  /** `secrets.required` */
  secrets: readonly string[];
}

/**
 * Problems of a wrangler configuration (keyed by environment, `local` for the top level): a
 * deployable environment that does not declare a required secret, or two environments sharing a
 * worker name (a `wrangler deploy` of the local config would otherwise overwrite production).
 */
export function configProblems(configs: Record<string, DeployableConfig>, deployable: readonly string[]): string[] {
  const problems: string[] = [];
  for (const env of deployable) {
    const config = configs[env];
    if (!config) {
      problems.push(`environment "${env}" is missing`);
      continue;
    }
    const missing = REQUIRED_SECRETS.filter((name) => !config.secrets.includes(name));
    if (missing.length > 0) problems.push(`[env.${env}.secrets] required must list ${missing.join(", ")}`);
  }
  const byName = new Map<string, string[]>();
  for (const [env, config] of Object.entries(configs)) byName.set(config.name, [...(byName.get(config.name) ?? []), env]);
  for (const [name, envs] of byName) {
    if (envs.length > 1) problems.push(`environments ${envs.join(", ")} share the worker name "${name}"`);
  }
  return problems;
}
