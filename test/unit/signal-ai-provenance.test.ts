import { describe, expect, it } from "vitest";
import { readMetadata } from "../../src/analysis/metadata";
import { detectAiProvenance } from "../../src/analysis/signals/ai-provenance";
import { DigitalSourceType, makeTestSigner, signJpeg } from "../helpers/c2pa";
import { encodeJpeg, encodePngRgb, exifTiff, insertSegment, naturalScene, xmpSegment, xmpWithSourceType } from "../helpers/synth";

const scene = naturalScene(96, 64, 11);

async function detect(bytes: Uint8Array, mediaType = "image/jpeg", trusted: string[] = []) {
  return detectAiProvenance(await readMetadata(bytes, mediaType, trusted));
}

function codes(result: { evidence: Array<{ code: string }> }): string[] {
  return result.evidence.map((e) => e.code);
}

describe("ai_detection (provenance markers)", () => {
  it("a PNG with Stable Diffusion `parameters` is likely_ai", async () => {
    const png = encodePngRgb(scene, { parameters: "a red car, photo\nSteps: 20, Sampler: Euler a, CFG scale: 7, Seed: 42, Model hash: abc" });
    const result = await detect(png, "image/png");
    expect(result.label).toBe("likely_ai");
    expect(result.confidence).toBeGreaterThanOrEqual(0.85);
    expect(codes(result)).toContain("sd_parameters_chunk");
  });

  it("a PNG with ComfyUI `prompt` and `workflow` is likely_ai", async () => {
    const png = encodePngRgb(scene, { prompt: JSON.stringify({ 3: { class_type: "KSampler" } }), workflow: JSON.stringify({ nodes: [] }) });
    const result = await detect(png, "image/png");
    expect(result.label).toBe("likely_ai");
    expect(codes(result)).toContain("comfyui_workflow_chunk");
  });

  it("a JPEG with A1111 parameters in EXIF UserComment is likely_ai", async () => {
    const jpeg = encodeJpeg(scene, 90, exifTiff({ userComment: "a house\nSteps: 30, Sampler: DPM++ 2M, CFG scale: 6, Seed: 1" }));
    const result = await detect(jpeg);
    expect(result.label).toBe("likely_ai");
    expect(codes(result)).toContain("exif_user_comment_parameters");
  });

  it("generator parameters in the other forms public files carry are likely_ai (scripts/eval/provenance-data)", async () => {
    const cases: Array<[string, Uint8Array, string, string]> = [
      // SD.Next writes no Sampler, under a capitalised key.
      ["SD.Next parameters", encodePngRgb(scene, { Parameters: "a roof\nNegative prompt: blur\nSteps: 20, Size: 1024x1024, Seed: 2251068289, CFG scale: 6, App: SD.Next" }), "image/png", "sd_parameters_chunk"],
      // Fooocus and Hugging Face Spaces write JSON.
      ["JSON parameters", encodePngRgb(scene, { parameters: JSON.stringify({ Prompt: "a roof", Negative: "blur", steps: 30, cfg: 8, seed: 1 }) }), "image/png", "sd_parameters_chunk"],
      ["InvokeAI Dream", encodePngRgb(scene, { Dream: '"a roof" -s 50 -S 12345 -W 512 -H 512 -C 7.5 -A k_lms' }), "image/png", "generator_metadata_chunk"],
      ["ComfyUI graph in UserComment", encodeJpeg(scene, 90, exifTiff({ userComment: JSON.stringify({ prompt: { 12: { inputs: { filename_prefix: "ComfyUI" }, class_type: "SaveImage" } } }) })), "image/jpeg", "exif_user_comment_parameters"],
      ["ComfyUI graph in IFD0's UserComment (SaveImage Plus)", encodeJpeg(scene, 90, exifTiff({ ifd0UserComment: JSON.stringify({ prompt: { 12: { inputs: { filename_prefix: "ComfyUI" }, class_type: "SaveImage" } } }) })), "image/jpeg", "exif_user_comment_parameters"],
      ["SwarmUI in UserComment", encodeJpeg(scene, 90, exifTiff({ userComment: JSON.stringify({ sui_image_params: { prompt: "a roof", seed: 1 } }) })), "image/jpeg", "exif_user_comment_parameters"],
      ["ComfyUI graph in Make", encodeJpeg(scene, 90, exifTiff({ make: `Prompt: ${JSON.stringify({ 14: { inputs: { filename_prefix: "ComfyUI" }, class_type: "SaveImageExtended" } })}` })), "image/jpeg", "exif_generator_parameters"],
    ];
    for (const [name, bytes, type, code] of cases) {
      const result = await detect(bytes, type);
      expect(result.label, name).toBe("likely_ai");
      expect(codes(result), name).toContain(code);
    }
  });

  it("text that only looks like parameters is not a generator's", async () => {
    const cases: Array<[string, Uint8Array, string]> = [
      ["steps alone", encodeJpeg(scene, 90, exifTiff({ make: "Canon", userComment: "Steps: 3 to the front door" })), "image/jpeg"],
      ["a prompt alone", encodePngRgb(scene, { Comment: JSON.stringify({ prompt: "say cheese" }) }), "image/png"],
      ["inputs without a node class", encodeJpeg(scene, 90, exifTiff({ userComment: JSON.stringify({ inputs: { a: 1 } }) })), "image/jpeg"],
    ];
    for (const [name, bytes, type] of cases) expect((await detect(bytes, type)).label, name).toBe("unknown");
  });

  it("a JPEG whose XMP declares trainedAlgorithmicMedia is likely_ai", async () => {
    const jpeg = insertSegment(encodeJpeg(scene), 0xe1, xmpSegment(xmpWithSourceType("http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia")));
    const result = await detect(jpeg);
    expect(result.label).toBe("likely_ai");
    expect(codes(result)).toContain("xmp_generated_source_type");
  });

  it("a generator name in EXIF Software is likely_ai", async () => {
    const jpeg = encodeJpeg(scene, 90, exifTiff({ software: "Adobe Firefly 3" }));
    const result = await detect(jpeg);
    expect(result.label).toBe("likely_ai");
    expect(codes(result)).toContain("generator_software_tag");
  });

  it("a plain camera JPEG is unknown, never likely_human, and more camera metadata raises confidence", async () => {
    const bare = await detect(encodeJpeg(scene));
    expect(bare.label).toBe("unknown");
    expect(codes(bare)).toContain("no_generator_marker");
    const camera = await detect(encodeJpeg(scene, 90, exifTiff({ make: "Google", model: "Pixel 8", dateTimeOriginal: "2026:05:01 10:00:00" })));
    expect(camera.label).toBe("unknown");
    expect(camera.confidence).toBeGreaterThan(bare.confidence);
    expect(camera.confidence).toBeLessThanOrEqual(0.4);
  });

  it("a C2PA-signed JPEG declaring trainedAlgorithmicMedia (signed in the test) is likely_ai", async () => {
    const signer = await makeTestSigner("Generator");
    const signed = await signJpeg(encodeJpeg(scene), signer, DigitalSourceType.TrainedAlgorithmicMedia);
    const meta = await readMetadata(signed, "image/jpeg", []);
    expect(meta.c2pa?.valid).toBe(true);
    const result = detectAiProvenance(meta);
    expect(result.label).toBe("likely_ai");
    expect(result.confidence).toBeGreaterThanOrEqual(0.95);
    expect(codes(result)).toEqual(expect.arrayContaining(["c2pa_manifest_valid", "c2pa_generated_source_type"]));
  });

  it("a C2PA capture manifest is likely_human only when its signer is trusted and the manifest still validates", async () => {
    const signer = await makeTestSigner("Capture App");
    const signed = await signJpeg(encodeJpeg(scene), signer, DigitalSourceType.DigitalCapture);

    const untrusted = await detect(signed);
    expect(untrusted.label).toBe("unknown");
    expect(codes(untrusted)).toContain("c2pa_signer_untrusted");

    const trustedByCa = await detect(signed, "image/jpeg", [signer.caFingerprint]);
    expect(trustedByCa.label).toBe("likely_human");
    expect(codes(trustedByCa)).toContain("c2pa_trusted_capture");

    // Flip one byte of the entropy-coded image data after signing: the hard binding breaks.
    const tampered = signed.slice();
    tampered[tampered.length - 10] = tampered[tampered.length - 10]! ^ 0x55;
    const broken = await detect(tampered, "image/jpeg", [signer.caFingerprint]);
    expect(broken.label).toBe("unknown");
    expect(codes(broken)).toContain("c2pa_manifest_invalid");
    const meta = await readMetadata(tampered, "image/jpeg", [signer.caFingerprint]);
    expect(meta.c2pa?.failures).toContain("assertion.dataHash.mismatch");
  });
});
