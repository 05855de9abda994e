import type { Miniflare } from "miniflare";

export interface BundledModules {
  modulesRoot: string;
  modules: Array<{ type: "ESModule" | "CompiledWasm"; path: string }>;
}
export function bundle(config: string, outDir: string): BundledModules;
export function workerName(config: string): string;
export function workerOptions(config: string, outDir: string, options?: { vars?: Record<string, string>; assets?: boolean; socket?: number }): Record<string, unknown> & { name: string };
export function withLocalRateLimits<T extends Record<string, unknown>>(options: T): { worker: T; limiter: Record<string, unknown> | null };
export function workerdInstance(options: {
  name: string;
  workers: unknown[];
  persistDir: string;
  port?: number;
  logLevel?: number;
  inspectorPort?: number;
  triggerHandlers?: boolean;
  onLog?: (message: string) => void;
  /** The process's view of the dev registry, each time it changes. */
  onRegistry?: (view: Record<string, { debugPortAddress?: string; queueConsumers?: string[] }>) => void;
}): Miniflare;
export interface LocalRuntime {
  url: string;
  scheduled(cron: string): Promise<unknown>;
  dispose(): Promise<void>;
}
export function startLocalRuntime(options: { persistDir: string; port: number; vars?: Record<string, string>; apiVars?: Record<string, string>; logLevel?: number; onLog?: (message: string) => void }): Promise<LocalRuntime>;
