import { describe, expect, it } from "vitest";
import { unpairedSurrogatePath } from "../../src/lib/text";

describe("unpairedSurrogatePath (every JSON body, lib/http.ts)", () => {
  it("names the string holding half a pair, or the object holding such a key", () => {
    expect(unpairedSurrogatePath(String.raw`{"a":{"b":["ok","x\ud800"]}}`)).toBe("a.b.1");
    expect(unpairedSurrogatePath(String.raw`{"a":{"k\udc00":"v"}}`)).toBe("a");
    expect(unpairedSurrogatePath(String.raw`"\udfff"`)).toBe("body");
    expect(unpairedSurrogatePath(String.raw`{"low_then_high":"\udc00\ud800"}`)).toBe("low_then_high");
  });

  it("passes whole pairs, an escaped backslash before u, malformed JSON (the validator's) and bodies without escapes", () => {
    expect(unpairedSurrogatePath(String.raw`{"a":"\ud83d\ude00","b":"😀"}`)).toBeNull();
    expect(unpairedSurrogatePath(String.raw`{"a":"\\ud800"}`)).toBeNull();
    expect(unpairedSurrogatePath(String.raw`{"a":"\ud800`)).toBeNull();
    expect(unpairedSurrogatePath(`{"a":"${"x".repeat(1_000_000)}"}`)).toBeNull();
  });

  it("walks a body nested deeper than the call stack without overflowing it", () => {
    const depth = 200_000;
    const deep = `${"[".repeat(depth)}"\\ud800"${"]".repeat(depth)}`;
    expect(unpairedSurrogatePath(deep)).toBe(Array.from({ length: depth }, () => "0").join("."));
  });
});
