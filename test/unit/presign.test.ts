import { describe, expect, it } from "vitest";
import { presignPut, PRESIGN_TTL_SECONDS } from "../../src/storage/presign";

describe("direct-to-R2 presigned PUT", () => {
  it("signs content-type and if-none-match (create-only), expires in 300 s, targets the bucket key", async () => {
    const url = new URL(
      await presignPut(
        { accountId: "acc123", accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret", bucket: "evidence" },
        "verifications/vfy_01M82BB9AB26PZRT0D1PRV3Y8W/cap_01M82BB9AB26PZRT0D1PRV3Y8X",
        "image/jpeg",
        new Date("2026-11-22T10:00:00Z"),
      ),
    );
    expect(url.host).toBe("acc123.r2.cloudflarestorage.com");
    expect(url.pathname).toBe("/evidence/verifications/vfy_01M82BB9AB26PZRT0D1PRV3Y8W/cap_01M82BB9AB26PZRT0D1PRV3Y8X");
    expect(url.searchParams.get("X-Amz-SignedHeaders")).toBe("content-type;host;if-none-match");
    expect(url.searchParams.get("X-Amz-Expires")).toBe(String(PRESIGN_TTL_SECONDS));
    expect(PRESIGN_TTL_SECONDS).toBe(300);
    expect(url.searchParams.get("X-Amz-Date")).toBe("20261122T100000Z");
    expect(url.searchParams.get("X-Amz-Credential")).toBe("AKIDEXAMPLE/20261122/auto/s3/aws4_request");
    expect(url.searchParams.get("X-Amz-Signature")).toMatch(/^[0-9a-f]{64}$/);
    expect(url.searchParams.has("X-Amz-Content-Sha256")).toBe(false);
  });

  it("a different content type yields a different signature", async () => {
    const creds = { accountId: "a", accessKeyId: "k", secretAccessKey: "s", bucket: "b" };
    const at = new Date("2026-11-22T10:00:00Z");
    const jpeg = new URL(await presignPut(creds, "x/y", "image/jpeg", at)).searchParams.get("X-Amz-Signature");
    const png = new URL(await presignPut(creds, "x/y", "image/png", at)).searchParams.get("X-Amz-Signature");
    expect(jpeg).not.toBe(png);
  });
});
