/**
 * The generation parameters image generators write into the files they save, recognised in any
 * text field: what each pattern is was read off public files (docs/signals.md, "Provenance on public
 * files"; scripts/eval/provenance-data). Each test is a few linear scans: a field is at most the
 * container reader's bound (metadata-chunks.ts), and workflows run to hundreds of kilobytes.
 */
export type GeneratorParameters = "a1111" | "comfyui_graph" | "comfyui_workflow" | "swarmui" | "json_parameters" | "invokeai_dream";

/** A1111 and its forks (Forge, SD.Next, Civitai): "<prompt>\nSteps: 20, Sampler: Euler a, CFG scale: 7, Seed: …" (SD.Next writes no Sampler). */
const A1111_STEPS = /\bSteps:\s*\d+/;
const A1111_MORE = /\b(?:Sampler|CFG scale|Seed):\s*\S/;
/** ComfyUI's API prompt: {"3": {"class_type": "KSampler", "inputs": {…}}, …} (also Civitai's resource stack). */
const COMFY_CLASS = /"class_type"\s*:\s*"/;
const COMFY_INPUTS = /"inputs"\s*:\s*\{/;
/** ComfyUI's editor workflow: {"last_node_id": …, "nodes": [...], "links": [...]}. */
const COMFY_NODES = /"nodes"\s*:\s*\[/;
const COMFY_LINKS = /"links"\s*:\s*\[/;
/** SwarmUI: {"sui_image_params": {"prompt": …}}. */
const SWARMUI = /"sui_image_params"\s*:/;
/** JSON parameters (Fooocus, Hugging Face Spaces' diffusers apps): a prompt beside a sampling setting. */
const JSON_PROMPT = /"(?:prompt|Prompt)"\s*:\s*"/;
const JSON_SAMPLING = /"(?:negative_prompt|Negative|guidance_scale|num_inference_steps|cfg|cfg_scale|steps|sampler|sampler_name|scheduler)"\s*:/;
/** InvokeAI's first format, a `Dream` chunk: "<prompt>" -s 50 -S 1234 -W 512 -H 512 -C 7.5 -A k_lms. */
const DREAM = /\s-S\s*\d+\b[\s\S]{0,200}\s-[sWHCA]\s*\S/;

export function generatorParameters(text: string): GeneratorParameters | null {
  if (SWARMUI.test(text)) return "swarmui";
  if (COMFY_CLASS.test(text) && COMFY_INPUTS.test(text)) return "comfyui_graph";
  if (COMFY_NODES.test(text) && COMFY_LINKS.test(text)) return "comfyui_workflow";
  if (A1111_STEPS.test(text) && A1111_MORE.test(text)) return "a1111";
  if (JSON_PROMPT.test(text) && JSON_SAMPLING.test(text)) return "json_parameters";
  if (DREAM.test(text)) return "invokeai_dream";
  return null;
}
