// Features of a small pretrained image network for every image of the AI set or the real-recapture
// set (research: nothing here ships; README.md beside this file).
//
//   npx tsx scripts/eval/backbone-probe/extract.ts ai|screen
//
// The network is nsfwjs's MobileNetV2 (ImageNet-initialised, fine-tuned on five photo/drawing
// classes; MIT), run by TensorFlow.js's WebAssembly backend. Both come from npm into
// .cache/backbone-probe/ at the pinned versions, so the project's dependencies stay as they are.
// Each image gives two 1280-value vectors: the whole picture squashed to 224 × 224 (what it shows)
// and its centre 224 × 224 at native resolution (its pixel-level texture), read by ImageMagick.
import { Buffer } from "node:buffer";
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { cachePath, readManifest } from "../screen-data/files";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const CACHE = join(ROOT, ".cache/backbone-probe");
const PACKAGES = ["nsfwjs@4.3.0", "@tensorflow/tfjs@4.22.0", "@tensorflow/tfjs-backend-wasm@4.22.0"];
const SIDE = 224;

const set = process.argv[2];
if (set !== "ai" && set !== "screen") throw new Error("usage: extract.ts ai|screen");

if (!existsSync(join(CACHE, "node_modules/nsfwjs"))) {
  execFileSync("npm", ["install", "--prefix", CACHE, "--no-save", "--ignore-scripts", ...PACKAGES], { stdio: "inherit" });
}
const require = createRequire(join(CACHE, "node_modules/"));
const tf = require("@tensorflow/tfjs");
require("@tensorflow/tfjs-backend-wasm");

/** `split:class:source` and path of every image, from the folders build.ts filled. */
function images(): Array<{ label: string; file: string }> {
  if (set === "ai") {
    const base = join(ROOT, ".cache/ai-data");
    return ["train", "val", "test"].flatMap((split) =>
      ["generated", "real"].flatMap((cls) =>
        readdirSync(join(base, split, cls)).map((f) => ({ label: `${split}:${cls}:${f.split("__")[0]}`, file: join(base, split, cls, f) })),
      ),
    );
  }
  return readManifest().map((e) => ({ label: `${e.split}:${e.cls}:${e.repo.replace("/", "+")}`, file: fileURLToPath(cachePath(e)) }));
}

function pixels(file: string, view: string): Uint8Array {
  const crop = view === "crop" ? ["-gravity", "center", "-crop", `${SIDE}x${SIDE}+0+0`, "+repage"] : [];
  const args = [`${file}[0]`, "-auto-orient", "-colorspace", "sRGB", "-alpha", "off", ...crop, "-resize", `${SIDE}x${SIDE}!`, "-depth", "8", "rgb:-"];
  return new Uint8Array(execFileSync("convert", args, { maxBuffer: 1 << 26, stdio: ["ignore", "pipe", "ignore"] }));
}

async function network() {
  const dir = join(CACHE, "node_modules/nsfwjs/dist/models/mobilenet_v2/");
  const { modelTopology, weightsManifest } = require(dir + "model.min.js");
  const weights = Buffer.from(require(dir + "group1-shard1of1.min.js"), "base64");
  await tf.setBackend("wasm");
  const model = await tf.loadLayersModel(
    tf.io.fromMemory({ modelTopology, weightSpecs: weightsManifest[0].weights, weightData: new Uint8Array(weights).buffer }),
  );
  // The pooled 1280 values before nsfwjs's own classifier head.
  return tf.model({ inputs: model.inputs, outputs: model.getLayer("flatten_1").output });
}

const net = await network();
const list = images();
const lines = [];
for (const [i, { label, file }] of list.entries()) {
  const row: Record<string, unknown> = { label, file: file.slice(ROOT.length + 1) };
  for (const view of ["squash", "crop"]) {
    const input = tf.tidy(() => tf.tensor3d(pixels(file, view), [SIDE, SIDE, 3], "int32").toFloat().div(255).expandDims(0));
    const output = net.predict(input);
    row[view] = Array.from(await output.data(), (x: number) => +x.toFixed(4));
    tf.dispose([input, output]);
  }
  lines.push(JSON.stringify(row));
  if ((i + 1) % 250 === 0) console.error(`${i + 1} / ${list.length}`);
}
writeFileSync(join(CACHE, `${set}.jsonl`), lines.join("\n") + "\n");
console.error(`${lines.length} images → .cache/backbone-probe/${set}.jsonl`);
