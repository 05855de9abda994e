import { api, ok, type Schemas } from "../api";
import { useLoad } from "./hooks";

type Signal = Schemas["Capabilities"]["defaults"]["signals_required"][number];

/** One read of the deployment's capabilities shared by every form (they do not change while the page is open). */
let defaults: Promise<Signal[]> | null = null;

function loadDefaults(): Promise<Signal[]> {
  defaults ??= ok(api.GET("/v1/capabilities")).then((c) => c.defaults.signals_required);
  defaults.catch(() => (defaults = null));
  return defaults;
}

/**
 * The checks this deployment gives a creation that names none (GET /v1/capabilities `defaults`):
 * what a form left to the defaults shows ticked. Undefined until loaded.
 */
export function useDefaultSignals(): Signal[] | undefined {
  return useLoad(loadDefaults, []).data;
}
