// Part of `npm run build:check`: the deployable environments of wrangler.toml must declare every
// secret the Worker needs (`[env.<name>.secrets] required`, so `wrangler deploy` refuses to ship a
// Worker without them) and each environment must have its own worker name.
import { unstable_readConfig } from "wrangler";
import { configProblems, type DeployableConfig } from "../src/config-check";

const DEPLOYABLE = ["staging", "production"] as const;

const configPath = process.argv[2] ?? "wrangler.toml";

const read = (env?: string): DeployableConfig => {
  const config = unstable_readConfig({ config: configPath, ...(env ? { env } : {}) }, { hideWarnings: true });
  return { name: config.name ?? "", secrets: config.secrets?.required ?? [] };
};

const problems = configProblems({ local: read(), ...Object.fromEntries(DEPLOYABLE.map((env) => [env, read(env)])) }, DEPLOYABLE);
if (problems.length > 0) {
  for (const problem of problems) console.error(`${configPath}: ${problem}`);
  process.exit(1);
}
console.log(`${configPath}: ${DEPLOYABLE.join(", ")} declare their required secrets; every environment has its own worker name.`);
