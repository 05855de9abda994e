import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { callJson, createVerification, seedTenant, withVision, type TestTenant } from "../helpers/api";

let t: TestTenant;
beforeAll(async () => {
  t = await seedTenant();
});

const image = (over: Record<string, unknown> = {}) => ({ key: "photo", type: "image", description: "A photo", min: 1, max: 1, ...over });
const text = (over: Record<string, unknown> = {}) => ({
  key: "answer",
  type: "text",
  required: true,
  validation: { max_length: 20, format: "free_text" },
  ...over,
});
const upload = (over: Record<string, unknown> = {}) => ({ key: "docs", type: "upload", min: 0, max: 1, ...over });
const str = (n: number) => "x".repeat(n);

/** These tests are about the request's shape: a deployment that can assess everything (a vision provider configured). */
async function create(body: unknown) {
  return callJson("/v1/verifications", { key: t.key, body, env: withVision() });
}

/** Asserts a 400 invalid_request whose `fields` names `path`. */
async function rejects(body: unknown, path: string) {
  const res = await create(body);
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.error.code).toBe("invalid_request");
  expect(typeof res.body.error.message).toBe("string");
  expect(Object.keys(res.body.error.fields)).toContain(path);
}

async function accepts(body: unknown) {
  const res = await create(body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

describe("max_captures and the capture_1 sugar", () => {
  it("accepts 1 and 20, refuses 0, 21, fractions and strings", async () => {
    await accepts({ max_captures: 1 });
    await accepts({ max_captures: 20 });
    await rejects({ max_captures: 0 }, "max_captures");
    await rejects({ max_captures: 21 }, "max_captures");
    await rejects({ max_captures: 1.5 }, "max_captures");
    await rejects({ max_captures: "2" }, "max_captures");
  });

  it("reads back as one image step capture_1 with min = max = N", async () => {
    const v = await accepts({ max_captures: 3 });
    expect(v.config).toEqual({
      max_captures: 3,
      steps: [{ key: "capture_1", type: "image", description: "", min: 3, max: 3 }],
      // The hosted page's default set: depth is assessed there from the capture-integrity record.
      signals_required: ["screen", "ai", "reverse", "depth"],
      // No signals_required in the request: the service chose them, and says so.
      signals_default: { left_out: [] },
    });
    expect(v.status).toBe("pending");
    expect(v.captures_count).toBe(0);
    expect(v.capture_url).toBe(`http://localhost:8787/c/${v.id}`);
  });

  it("needs exactly one of max_captures or steps", async () => {
    await rejects({}, "max_captures");
    await rejects({ max_captures: 1, steps: [image()] }, "max_captures");
  });
});

describe("steps", () => {
  it("image: min >= 0, max >= 1, min <= max, description required", async () => {
    await accepts({ steps: [image({ min: 0, max: 1 })] });
    await rejects({ steps: [image({ min: -1 })] }, "steps.0.min");
    await rejects({ steps: [image({ max: 0 })] }, "steps.0.max");
    await rejects({ steps: [image({ min: 2, max: 1 })] }, "steps.0.min");
    const { description: _d, ...noDescription } = image();
    await rejects({ steps: [noDescription] }, "steps.0.description");
  });

  it("key is 1..64 characters and unique", async () => {
    await accepts({ steps: [image({ key: str(64) })] });
    await rejects({ steps: [image({ key: str(65) })] }, "steps.0.key");
    await rejects({ steps: [image({ key: "" })] }, "steps.0.key");
    await rejects({ steps: [image(), text({ key: "photo" })] }, "steps.1.key");
  });

  it("key is one line: control characters and line separators are refused with a message that says so", async () => {
    for (const bad of ["a\nb", "a\rb", "a\u2028b", "a\u2029b", "a\tb", "\u0000", "a\u0085b", "a\u007fb", "photo\n"]) {
      for (const [i, steps] of [[0, [image({ key: bad })]], [1, [image(), text({ key: bad })]], [1, [image(), upload({ key: bad })]]] as const) {
        const res = await create({ steps });
        expect(res.status, JSON.stringify(bad)).toBe(400);
        expect(res.body.error.code).toBe("invalid_request");
        expect(res.body.error.fields[`steps.${i}.key`]).toMatch(/control characters and line breaks/);
      }
    }
    // Any other Unicode is a key like any other.
    await accepts({ steps: [image({ key: "Fahrzeug-Schein_vorn (ß, é, 車)" })] });
  });

  // Probe of 2026-12-04: an override (U+202E) and a key of one space were taken as step keys.
  it("key is not blank and holds no bidirectional control, which would make two keys print alike", async () => {
    for (const bad of ["a\u202Eb", "\u2066photo\u2069", "a\u200Fb", "a\u061Cb"]) {
      const res = await create({ steps: [image({ key: bad })] });
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body.error.fields["steps.0.key"]).toMatch(/bidirectional controls/);
    }
    for (const blank of [" ", "\u3000 "]) {
      const res = await create({ steps: [image(), text({ key: blank })] });
      expect(res.status, JSON.stringify(blank)).toBe(400);
      expect(res.body.error.fields["steps.1.key"]).toBe("Must not be blank.");
    }
    await accepts({ steps: [image({ key: "صورة_1" })] });
  });

  // Probe of 2026-12-06: `ab` and `ab\u200b`, composed and decomposed `é`, `x` and ` x` were pairs of
  // keys that print alike, and a key of only U+3164 printed as nothing.
  it("no two keys print alike: invisible characters, white space at either end and decomposed forms are refused", async () => {
    const refused: Array<[string, RegExp]> = [
      ["\u3164", /^Must show something/],
      ["\u2800", /^Must show something/],
      ["ab\u200B", /invisible characters/],
      ["a\u00ADb", /invisible characters/],
      ["a\u200Db", /invisible characters/],
      ["\u2764\uFE0F", /invisible characters/],
      [" x", /white space/],
      ["x\u3000", /white space/],
      ["e\u0301", /normalization form C/],
      // Probe of 2026-12-06 (second): a trailing blank Braille pattern, and spaces that print like U+0020.
      ["ab\u2800", /Braille/],
      ["a\u00A0b", /plain space/],
      ["a\u3000b", /plain space/],
      ["a\u2003b", /plain space/],
    ];
    for (const [bad, message] of refused) {
      const res = await create({ steps: [image(), text({ key: bad })] });
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body.error.fields["steps.1.key"], JSON.stringify(bad)).toMatch(message);
    }
    await accepts({ steps: [image({ key: "\u00E9tat" }), text({ key: "a b" })] });
  });

  it("description is text shown to the end user: lines and tabs kept, NUL and escape sequences refused", async () => {
    for (const bad of ["x\u0000y", "\u001b[31mred", "a\u2028b", "a\u0085b"]) {
      for (const [i, steps] of [[0, [image({ description: bad })]], [1, [image(), text({ description: bad })]], [1, [image(), upload({ description: bad })]]] as const) {
        const res = await create({ steps });
        expect(res.status, JSON.stringify(bad)).toBe(400);
        expect(res.body.error.fields[`steps.${i}.description`]).toMatch(/control characters other than tab and line breaks/);
      }
    }
    const v = await accepts({ steps: [image({ description: "Front of the car\n\t(plate visible)" })] });
    expect(v.config.steps[0].description).toBe("Front of the car\n\t(plate visible)");
  });

  it("description is at most 500 characters", async () => {
    await accepts({ steps: [image({ description: str(500) })] });
    await rejects({ steps: [image({ description: str(501) })] }, "steps.0.description");
    await rejects({ steps: [image(), text({ description: str(501) })] }, "steps.1.description");
  });

  it("text: required and validation are required; max_length 1..2000; formats; min_length <= max_length", async () => {
    await accepts({ steps: [image(), text({ validation: { max_length: 1, format: "numeric_id" } })] });
    await accepts({ steps: [image(), text({ validation: { min_length: 0, max_length: 2000, format: "alphanumeric_id" } })] });
    await rejects({ steps: [image(), text({ validation: { max_length: 0, format: "free_text" } })] }, "steps.1.validation.max_length");
    await rejects({ steps: [image(), text({ validation: { max_length: 2001, format: "free_text" } })] }, "steps.1.validation.max_length");
    await rejects({ steps: [image(), text({ validation: { max_length: 5, format: "regex" } })] }, "steps.1.validation.format");
    await rejects({ steps: [image(), text({ validation: { max_length: 5 } })] }, "steps.1.validation.format");
    await rejects({ steps: [image(), text({ validation: { min_length: -1, max_length: 5, format: "free_text" } })] }, "steps.1.validation.min_length");
    await rejects({ steps: [image(), text({ validation: { min_length: 6, max_length: 5, format: "free_text" } })] }, "steps.1.validation.min_length");
    await rejects({ steps: [image(), text({ validation: { max_length: 5, format: "free_text", pattern: ".*" } })] }, "steps.1.validation.pattern");
    const { required: _r, ...noRequired } = text();
    await rejects({ steps: [image(), noRequired] }, "steps.1.required");
  });

  it("upload: defaults accept to all five types and max_size_bytes to 10 MB; caps at 25 MB", async () => {
    const v = await accepts({ steps: [upload()] });
    expect(v.config.steps[0]).toEqual({
      key: "docs",
      type: "upload",
      min: 0,
      max: 1,
      accept: ["image/jpeg", "image/png", "image/webp", "image/heic", "image/heif"],
      max_size_bytes: 10485760,
    });
    await accepts({ steps: [upload({ max_size_bytes: 26214400, accept: ["image/png"] })] });
    await accepts({ steps: [upload({ max_size_bytes: 1 })] });
    await rejects({ steps: [upload({ max_size_bytes: 26214401 })] }, "steps.0.max_size_bytes");
    await rejects({ steps: [upload({ max_size_bytes: 0 })] }, "steps.0.max_size_bytes");
    await rejects({ steps: [upload({ accept: ["image/gif"] })] }, "steps.0.accept.0");
    await rejects({ steps: [upload({ accept: [] })] }, "steps.0.accept");
    await rejects({ steps: [upload({ max: 0 })] }, "steps.0.max");
  });

  it("unknown step type, and unknown fields, are refused", async () => {
    await rejects({ steps: [{ key: "v", type: "video", min: 1, max: 1 }] }, "steps.0.type");
    await rejects({ steps: [image({ colour: "red" })] }, "steps.0.colour");
    // A `__proto__` key is named like any other (it once vanished into the error map's prototype, leaving fields empty).
    await rejects(JSON.parse('{"max_captures": 1, "__proto__": {"x": 1}}'), "__proto__");
  });

  it("the image and upload steps hold 1..20 captures in total, and at least one exists", async () => {
    await accepts({ steps: [image({ key: "a", max: 10 }), upload({ key: "b", max: 10 })] });
    await rejects({ steps: [image({ key: "a", max: 10 }), upload({ key: "b", max: 11 })] }, "steps");
    await rejects({ steps: [text()] }, "steps");
    await rejects({ steps: [] }, "steps");
  });

  it("config.max_captures is derived from the steps", async () => {
    const v = await accepts({ steps: [image({ key: "a", max: 3 }), text(), upload({ key: "b", max: 2 })] });
    expect(v.config.max_captures).toBe(5);
  });
});

describe("the other config fields", () => {
  it("signals_required: enum, default, no repeats, context requires a context object", async () => {
    const v = await accepts({ max_captures: 1, signals_required: ["depth"], capture_channel: "api" });
    expect(v.config.signals_required).toEqual(["depth"]);
    expect(v.config.capture_channel).toBe("api");
    expect(v.config.signals_default).toBeUndefined();
    await rejects({ max_captures: 1, signals_required: ["vibes"] }, "signals_required.0");
    await rejects({ max_captures: 1, signals_required: ["ai", "ai"] }, "signals_required");
    await rejects({ max_captures: 1, signals_required: ["context"] }, "context");
    await accepts({ max_captures: 1, signals_required: ["context"], context: { kind: "car", summary: "A blue car" } });
  });

  // Docs probe of 2026-12-04: without a vision provider the first answer named only the missing
  // context object; the second, once it was sent, said the deployment cannot assess context at all.
  it("context asked for without a context object, where nothing assesses it: one answer names both fields", async () => {
    const res = await callJson("/v1/verifications", { key: t.key, body: { max_captures: 1, signals_required: ["screen", "context"] } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_request");
    expect(res.body.error.fields.context).toBe("The context signal requires a context object.");
    expect(res.body.error.fields["signals_required.1"]).toMatch(/cannot be assessed by this deployment/);
  });

  it("context is cross-checked whenever it is given: left out, signals_required gains context; given without it, 400 naming context", async () => {
    const context = { kind: "car", summary: "A blue car" };
    const defaulted = await accepts({ max_captures: 1, context });
    expect(defaulted.config.signals_required).toEqual(["screen", "ai", "reverse", "depth", "context"]);
    const refused = await create({ max_captures: 1, signals_required: ["screen", "ai"], context });
    expect(refused.status).toBe(400);
    expect(refused.body.error.fields).toEqual({ context: expect.stringMatching(/signals_required/) });
    // Where nobody can cross-check it (no vision provider), giving context is refused, naming what enables it.
    const unassessable = await callJson("/v1/verifications", { key: t.key, body: { max_captures: 1, context } });
    expect(unassessable.status).toBe(400);
    expect(unassessable.body.error.fields).toEqual({ context: expect.stringContaining("VISION_API_URL") });
    // Link templates follow the same rules.
    const template = await callJson("/v1/link-templates", { key: t.key, body: { slug: `ctx-${Date.now().toString(36)}`, name: "Ctx", max_captures: 1, signals_required: ["screen"], context } });
    expect(template.status).toBe(400);
    expect(Object.keys(template.body.error.fields)).toEqual(["context"]);
  });

  it("signals_required: [] is refused: nothing evaluated is never a verdict (leave it out for the default set)", async () => {
    const res = await create({ max_captures: 1, signals_required: [] });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_request");
    expect(Object.keys(res.body.error.fields)).toEqual(["signals_required"]);
    expect(res.body.error.fields.signals_required).toMatch(/at least one signal/);
    // Left out, the default set of the default channel (hosted_page: depth from the capture burst) applies.
    expect((await accepts({ max_captures: 1 })).config.signals_required).toEqual(["screen", "ai", "reverse", "depth"]);
  });

  it("mode is verification or audit and echoed only when set", async () => {
    expect((await accepts({ max_captures: 1, mode: "audit" })).config.mode).toBe("audit");
    expect((await accepts({ max_captures: 1 })).config.mode).toBeUndefined();
    await rejects({ max_captures: 1, mode: "other" }, "mode");
  });

  it("context: kind 1..64, summary 1..500, attributes of string, number or boolean", async () => {
    const context = { kind: str(64), summary: str(500), attributes: { colour: "blue", doors: 4, damaged: true } };
    expect((await accepts({ max_captures: 1, context })).config.context).toEqual(context);
    await rejects({ max_captures: 1, context: { kind: "", summary: "s" } }, "context.kind");
    await rejects({ max_captures: 1, context: { kind: str(65), summary: "s" } }, "context.kind");
    await rejects({ max_captures: 1, context: { kind: "k", summary: "" } }, "context.summary");
    await rejects({ max_captures: 1, context: { kind: "k", summary: str(501) } }, "context.summary");
    await rejects({ max_captures: 1, context: { kind: "k" } }, "context.summary");
    await rejects({ max_captures: 1, context: { kind: "k", summary: "s", attributes: { list: [1] } } }, "context.attributes.list");
  });

  it("context.attributes: at most 50 keys and 8 KB as JSON", async () => {
    const keys = (n: number, value: string | number = 1) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, value]));
    await accepts({ max_captures: 1, context: { kind: "k", summary: "s", attributes: keys(50) } });
    await rejects({ max_captures: 1, context: { kind: "k", summary: "s", attributes: keys(51) } }, "context.attributes");
    // 20 values of 450 characters: well under 50 keys, over 8 KB serialized.
    const big = { kind: "k", summary: "s", attributes: keys(20, str(450)) };
    expect(JSON.stringify(big.attributes).length).toBeGreaterThan(8 * 1024);
    await rejects({ max_captures: 1, context: big }, "context.attributes");
    const justUnder = { kind: "k", summary: "s", attributes: keys(17, str(450)) };
    expect(JSON.stringify(justUnder.attributes).length).toBeLessThanOrEqual(8 * 1024);
    await accepts({ max_captures: 1, context: justUnder });
    // Templates carry the same bound.
    const template = await callJson("/v1/link-templates", { key: t.key, body: { slug: `attrs-${Date.now().toString(36)}`, name: "Big", max_captures: 1, context: big } });
    expect(template.status).toBe(400);
    expect(Object.keys(template.body.error.fields)).toContain("context.attributes");
  });

  it("webhook_url must be an http(s) URI; notify_email an email; metadata a string map", async () => {
    const hook = `${env.FAKES_URL}/webhooks/validation-echo`;
    const v = await accepts({
      max_captures: 1,
      webhook_url: hook,
      notify_email: "ops@example.com",
      metadata: { claim: "C-1", empty: "" },
    });
    expect(v.config).toMatchObject({ webhook_url: hook, notify_email: "ops@example.com", metadata: { claim: "C-1", empty: "" } });
    await rejects({ max_captures: 1, webhook_url: "not a url" }, "webhook_url");
    await rejects({ max_captures: 1, webhook_url: "ftp://example.com/x" }, "webhook_url");
    // An IRI passed and was echoed as given, so the response (and every list page holding it) broke the document's `format: uri` (API probe of 2026-12-04).
    await rejects({ max_captures: 1, webhook_url: "http://exämple.com/x" }, "webhook_url");
    await rejects({ max_captures: 1, webhook_url: "https://example.com/ünïcode" }, "webhook_url");
    await rejects({ max_captures: 1, notify_email: "nobody" }, "notify_email");
    await rejects({ max_captures: 1, metadata: { n: 1 } }, "metadata.n");
  });

  // Probe of 2026-12-04: these bounds were enforced but absent from the document (a validator took
  // what the service refused), and a bad key was "Invalid key in record".
  it("metadata's key count and key length are bounds of the document too, and a bad key says which bound", async () => {
    const long = "k".repeat(41);
    const res = await create({ max_captures: 1, metadata: { [long]: "x" } });
    expect(res.status).toBe(400);
    expect(res.body.error.fields[`metadata.${long}`]).toBe("This key: Use at most 40 characters.");
    const empty = await create({ max_captures: 1, metadata: { "": "x" } });
    expect(empty.body.error.fields["metadata."]).toBe("This key: Must not be empty.");
    await rejects({ max_captures: 1, metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, "v"])) }, "metadata");
    await accepts({ max_captures: 1, metadata: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`.padEnd(40, "x"), "v"])) });
    const served = (await callJson("/v1/openapi.json")).body;
    const metadata = served.components.schemas.CreateVerificationRequest.properties.metadata;
    expect(metadata).toMatchObject({ maxProperties: 50, propertyNames: { minLength: 1, maxLength: 40 } });
  });

  // Probe of 2026-12-04: NUL in a metadata value was stored and sent back in every webhook.
  it("metadata values are text (lines kept, NUL and escape sequences refused) and keys one line", async () => {
    const res = await create({ max_captures: 1, metadata: { claim: "a\u0000b", note: "x\u001b[2J" } });
    expect(res.status).toBe(400);
    expect(res.body.error.fields).toMatchObject({ "metadata.claim": expect.stringMatching(/control characters/), "metadata.note": expect.stringMatching(/control characters/) });
    const key = await create({ max_captures: 1, metadata: { "a\nb": "x" } });
    expect(key.status).toBe(400);
    expect(key.body.error.fields["metadata.a\nb"]).toMatch(/^This key: Must be one line/);
    const v = await accepts({ max_captures: 1, metadata: { address: "1 Main St\r\nSpringfield" } });
    expect(v.config.metadata).toEqual({ address: "1 Main St\r\nSpringfield" });
    // A key is a name printed in the console and the report: a bidirectional control reorders what
    // the reader sees (probe of 2026-12-07). A value may hold one (right-to-left text needs them).
    const bidi = await create({ max_captures: 1, metadata: { "claim\u202eeton": "x" } });
    expect(bidi.status).toBe(400);
    expect(bidi.body.error.fields["metadata.claim\u202eeton"]).toMatch(/^This key: Must not hold bidirectional controls/);
    await accepts({ max_captures: 1, metadata: { address: "\u2067שדרות רוטשילד 1\u2069, Tel Aviv" } });
  });

  it("a map key a JavaScript object cannot hold as data (__proto__) is refused by name, never dropped in silence", async () => {
    const withKey = (json: string) => JSON.parse(json) as Record<string, unknown>;
    await rejects(withKey('{"max_captures":1,"metadata":{"claim":"C-1","__proto__":"x"}}'), "metadata.__proto__");
    await rejects(withKey('{"max_captures":1,"context":{"kind":"roof","summary":"A roof","attributes":{"__proto__":"x"}}}'), "context.attributes.__proto__");
    // Other keys named like Object.prototype's members are ordinary data.
    const v = await accepts(withKey('{"max_captures":1,"metadata":{"constructor":"c","toString":"t"}}'));
    expect(v.config.metadata).toEqual({ constructor: "c", toString: "t" });
  });

  it("half a surrogate pair anywhere in the body is refused by its path, never stored as U+FFFD", async () => {
    await rejects({ max_captures: 1, metadata: { claim: "C-1 \ud800" } }, "metadata.claim");
    await rejects({ max_captures: 1, metadata: { ["claim\udfff"]: "C-1" } }, "metadata");
    await rejects({ max_captures: 1, context: { kind: "roof", summary: "A roof", attributes: { storey: "\udc00\ud800" } } }, "context.attributes.storey");
    await rejects({ steps: [image({ description: "Front \ud83d" })] }, "steps.0.description");
    // A whole pair, escaped or not, is a character like any other.
    const rawBody = String.raw`{"max_captures":1,"metadata":{"a":"\ud83d\ude00","b":"😀","c":"\\ud800 is text"}}`;
    const res = await callJson("/v1/verifications", { key: t.key, rawBody, headers: { "Content-Type": "application/json" }, env: withVision() });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.config.metadata).toEqual({ a: "😀", b: "😀", c: String.raw`\ud800 is text` });
  });

  it("a body that is not valid UTF-8 is refused, never stored with U+FFFD in place of its bytes", async () => {
    // Security probe of 2026-12-07: raw bytes FF FE inside a JSON string were accepted and stored as U+FFFD.
    const prefix = new TextEncoder().encode('{"max_captures":1,"metadata":{"claim":"C-1 ');
    const suffix = new TextEncoder().encode('"}}');
    const rawBody = new Uint8Array([...prefix, 0xff, 0xfe, ...suffix]);
    const res = await callJson("/v1/verifications", { key: t.key, rawBody, headers: { "Content-Type": "application/json" } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "invalid_request", fields: { body: expect.stringMatching(/UTF-8/) } });
    // An overlong encoding of "/" (C0 AF) and a lone continuation byte are not UTF-8 either.
    for (const bad of [[0xc0, 0xaf], [0x80]]) {
      const again = await callJson("/v1/verifications", { key: t.key, rawBody: new Uint8Array([...prefix, ...bad, ...suffix]), headers: { "Content-Type": "application/json" } });
      expect(again.status).toBe(400);
    }
  });

  it("expected_location and expected_object are echoed", async () => {
    const v = await accepts({ max_captures: 1, expected_location: "1 Main St, Springfield", expected_object: "red bicycle" });
    expect(v.config).toMatchObject({ expected_location: "1 Main St, Springfield", expected_object: "red bicycle" });
    await rejects({ max_captures: 1, expected_object: "" }, "expected_object");
  });

  it("condition_aspects: 1..6 items of 1..40 characters", async () => {
    await accepts({ max_captures: 1, condition_aspects: ["a"] });
    await accepts({ max_captures: 1, condition_aspects: [str(40), "b", "c", "d", "e", "f"] });
    await rejects({ max_captures: 1, condition_aspects: [] }, "condition_aspects");
    await rejects({ max_captures: 1, condition_aspects: ["a", "b", "c", "d", "e", "f", "g"] }, "condition_aspects");
    await rejects({ max_captures: 1, condition_aspects: [str(41)] }, "condition_aspects.0");
    await rejects({ max_captures: 1, condition_aspects: ["  "] }, "condition_aspects.0");
  });

  it("expires_in_seconds: 1..2592000, default 7 days", async () => {
    const v = await accepts({ max_captures: 1 });
    expect(Date.parse(v.expires_at) - Date.parse(v.created_at)).toBe(604_800_000);
    const short = await accepts({ max_captures: 1, expires_in_seconds: 1 });
    expect(Date.parse(short.expires_at) - Date.parse(short.created_at)).toBe(1000);
    await accepts({ max_captures: 1, expires_in_seconds: 2_592_000 });
    await rejects({ max_captures: 1, expires_in_seconds: 0 }, "expires_in_seconds");
    await rejects({ max_captures: 1, expires_in_seconds: 2_592_001 }, "expires_in_seconds");
  });

  it("seal must be a boolean; unknown top-level fields are refused", async () => {
    await accepts({ max_captures: 1, seal: false });
    await rejects({ max_captures: 1, seal: "no" }, "seal");
    await rejects({ max_captures: 1, colour: "red" }, "colour");
  });
});

describe("bodies that are not a config object", () => {
  it.each([
    ["malformed JSON", "{"],
    ["an array", "[]"],
    ["a string", '"hello"'],
    ["null", "null"],
    ["a number", "42"],
  ])("%s is a 400 invalid_request", async (_name, raw) => {
    const res = await callJson("/v1/verifications", { key: t.key, rawBody: raw, method: "POST", headers: { "Content-Type": "application/json" } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_request");
    expect(res.body.error.fields).toBeTypeOf("object");
  });

  it("an empty body is a 400 naming the missing field", async () => {
    const res = await callJson("/v1/verifications", { key: t.key, method: "POST" });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_request");
    expect(Object.keys(res.body.error.fields)).toContain("max_captures");
  });

  it("JSON routes take only application/json bodies: anything else is 415 unsupported_media_type", async () => {
    const v = await createVerification(t.key);
    const routes: Array<[path: string, body: unknown, key?: string]> = [
      ["/v1/verifications", { max_captures: 2 }, t.key],
      ["/v1/auth/otp/verify", { otp_id: "walotp_01JD2Y4N9M6Q8R0S2T4V6W8X0Z", code: "123456" }],
      ["/v1/auth/magic-link", { email: "someone@example.test" }],
      [`/v1/verifications/${v.id}/progress`, { schema_version: 1, kind: "abandoned", step: "landing", elapsed_ms: 10 }],
      [`/v1/verifications/${v.id}/answers`, { step_key: "x", value: "y" }],
    ];
    // curl -d, an HTML form, a text/plain beacon or fetch, and no Content-Type at all.
    for (const contentType of ["application/x-www-form-urlencoded", "text/plain;charset=UTF-8", "multipart/form-data; boundary=x", undefined]) {
      for (const [path, body, key] of routes) {
        const res = await callJson(path, {
          ...(key ? { key } : {}),
          method: "POST",
          rawBody: JSON.stringify(body),
          headers: contentType ? { "Content-Type": contentType } : {},
        });
        expect(res.status, `${path} ${contentType}`).toBe(415);
        expect(res.body).toEqual({ error: { code: "unsupported_media_type", message: expect.stringContaining("application/json") } });
      }
    }
    // A string body is labelled text/plain by fetch itself; bytes go with no Content-Type at all, as from `curl -H 'Content-Type:'`.
    const unlabelled = await callJson("/v1/verifications", { key: t.key, method: "POST", rawBody: new TextEncoder().encode('{"max_captures":2}') });
    expect(unlabelled.status).toBe(415);
    expect(unlabelled.body).toEqual({ error: { code: "unsupported_media_type", message: expect.stringContaining("application/json") } });
    const ok = await callJson("/v1/verifications", {
      key: t.key,
      method: "POST",
      rawBody: '{"max_captures":2}',
      headers: { "Content-Type": "application/json; charset=utf-8" },
    });
    expect(ok.status).toBe(201);
  });

  // Probe of 2026-12-04: a gzip body was "Malformed JSON" (400) and a latin-1 one read as UTF-8.
  it("a compressed body or a charset other than UTF-8 is 415 saying so, not malformed JSON", async () => {
    const json = '{"max_captures":2,"metadata":{"name":"Jos\u00e9"}}';
    const gzipped = await new Response(new Blob([json]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer();
    const gzip = await callJson("/v1/verifications", { key: t.key, method: "POST", rawBody: gzipped, headers: { "Content-Type": "application/json", "Content-Encoding": "gzip" } });
    expect(gzip.status).toBe(415);
    expect(gzip.body).toEqual({ error: { code: "unsupported_media_type", message: "Content-Encoding gzip is not supported: send the body uncompressed." } });
    const latin1 = await callJson("/v1/verifications", { key: t.key, method: "POST", rawBody: json, headers: { "Content-Type": "application/json; charset=ISO-8859-1" } });
    expect(latin1.status).toBe(415);
    expect(latin1.body.error.message).toMatch(/^JSON is UTF-8/);
    // Probe of 2026-12-07: whitespace before the parameter (RFC 9110 §5.6.6 allows it) was refused by the router's own gate.
    for (const label of ['application/json; charset="UTF-8"', "application/json;charset=utf8", "application/json ; charset=utf-8", "Application/JSON\t;\tcharset=UTF-8"]) {
      const res = await callJson("/v1/verifications", { key: t.key, method: "POST", rawBody: json, headers: { "Content-Type": label, "Content-Encoding": "identity" } });
      expect(res.status, label).toBe(201);
    }
  });
});
