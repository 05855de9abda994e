import { api, ok, type Schemas } from "../api";
import { useLoad } from "./hooks";

type Capabilities = Schemas["Capabilities"];
type Signal = Capabilities["defaults"]["signals_required"][number];

/** One read of the deployment's capabilities shared by every form (they do not change while the page is open). */
let capabilities: Promise<Capabilities> | null = null;

function loadCapabilities(): Promise<Capabilities> {
  capabilities ??= ok(api.GET("/v1/capabilities"));
  capabilities.catch(() => (capabilities = null));
  return capabilities;
}

/**
 * The checks this deployment gives a creation that names none (GET /v1/capabilities `defaults`):
 * what a form left to the defaults shows ticked. Undefined until loaded.
 */
export function useDefaultSignals(): Signal[] | undefined {
  return useLoad(() => loadCapabilities().then((c) => c.defaults.signals_required), []).data;
}

/**
 * The checks this deployment cannot assess, each with why (GET /v1/capabilities `signals`): a form
 * offers them unticked and disabled, since the service refuses a creation requiring one. Empty until loaded.
 */
export function useUnavailableSignals(): Partial<Record<Signal, string>> {
  const loaded = useLoad(loadCapabilities, []).data;
  if (!loaded) return {};
  return Object.fromEntries(
    Object.entries(loaded.signals)
      .filter(([, capability]) => !capability.available)
      .map(([signal, capability]) => [signal, capability.reason ?? "this deployment cannot assess it"]),
  ) as Partial<Record<Signal, string>>;
}
