export const root: string;
export const wrangler: string;
export const wranglerEnv: NodeJS.ProcessEnv;
export function base62(length: number): string;
export const SECRET_GENERATORS: Record<"DEV_API_KEY" | "SIGNING_SECRET" | "SESSION_SECRET" | "BOT_SECRET" | "TRIAL_TENANT_ID", () => string>;
export function generateSecrets(): Record<"DEV_API_KEY" | "SIGNING_SECRET" | "SESSION_SECRET" | "BOT_SECRET" | "TRIAL_TENANT_ID", string>;
export function runWrangler(args: string[]): string;
export function applyMigrations(persistTo?: string): void;
export function seedDevTenant(vars: { DEV_API_KEY: string; TRIAL_TENANT_ID: string }, persistTo?: string): { tenantId: string };
