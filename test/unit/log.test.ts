import { afterEach, describe, expect, it, vi } from "vitest";
import { newId } from "../../src/lib/ids";
import { log, redactCredentials } from "../../src/lib/log";

afterEach(() => vi.restoreAllMocks());

describe("logs never carry a credential", () => {
  it("a capture id keeps its time part and loses its random part; upload and evidence tokens, magic links, invitations and certificate links are masked", () => {
    const id = newId("verification");
    const text = redactCredentials(`GET /v1/verify/${id}/captures /c/${id} /v1/uploads/tok.sig?x=1 /v1/evidence/ev.sig mlk_Abc123 ivt_Inv456 vfy_short /v1/certificates/cert_Zx9Q2w`);
    expect(text).not.toContain(id.slice(14));
    expect(text).toContain(`/v1/verify/${id.slice(0, 14)}[redacted]/captures`);
    expect(text).toContain("/v1/uploads/[redacted]?x=1");
    expect(text).toContain("/v1/evidence/[redacted]");
    expect(text).not.toContain("ev.sig");
    expect(text).toContain("mlk_[redacted]");
    expect(text).toContain("ivt_[redacted]");
    expect(text).not.toContain("Inv456");
    expect(text).toContain("vfy_[redacted]");
    expect(text).toContain("/v1/certificates/cert_[redacted]");
    expect(text).not.toContain("Zx9Q2w");
  });

  it("every level writes one JSON line with ids in fields and in error texts masked", () => {
    const lines: string[] = [];
    for (const level of ["log", "warn", "error"] as const) vi.spyOn(console, level).mockImplementation((line: string) => void lines.push(line));
    const id = newId("verification");
    log.info({ msg: "a", verification_id: id });
    log.warn({ msg: "b", error: `Error: no bytes at verifications/${id}/cap_1` });
    log.error({ msg: "c", nested: { ids: [id] } });
    expect(lines).toHaveLength(3);
    for (const line of lines) {
      expect(JSON.parse(line)).toHaveProperty("msg");
      expect(line).not.toContain(id);
      expect(line).toContain(`${id.slice(0, 14)}[redacted]`);
    }
  });
});
