import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { checkWebhookUrlSyntax, classifyAddress, guardWebhookUrl, type Refusal } from "../../src/domain/webhooks/url-guard";
import { dohResolver, type HostResolver } from "../../src/providers/dns";

function reasonOf(url: string): Refusal | "ok" {
  const result = checkWebhookUrlSyntax(url);
  return result.ok ? "ok" : result.reason;
}

/** A resolver with fixed answers: the guard's DNS step without any network. */
const fixed = (answers: Record<string, string[]>): HostResolver => ({
  async resolve(host) {
    return answers[host] ?? [];
  },
});

describe("webhook URL guard: the URL itself", () => {
  it.each([
    ["https://127.0.0.1/hook", "loopback"],
    ["https://127.9.9.9/hook", "loopback"],
    ["https://2130706433/hook", "loopback"], // decimal form of 127.0.0.1
    ["https://0177.0.0.1/hook", "loopback"], // octal
    ["https://0x7f.1/hook", "loopback"], // hex, short form
    ["https://[::1]/hook", "loopback"],
    ["https://[::ffff:127.0.0.1]/hook", "loopback"], // IPv4-mapped IPv6
    ["https://localhost/hook", "loopback"],
    ["https://LOCALHOST./hook", "loopback"],
    ["https://api.localhost/hook", "loopback"],
  ] as const)("refuses loopback %s", (url, reason) => expect(reasonOf(url)).toBe(reason));

  it.each([
    ["https://10.0.0.1/", "private"],
    ["https://172.16.5.4/", "private"],
    ["https://172.31.255.255/", "private"],
    ["https://192.168.1.1/", "private"],
    ["https://100.64.0.1/", "private"], // carrier-grade NAT
    ["https://[fd12:3456::1]/", "private"], // unique local
    ["https://[::ffff:10.0.0.1]/", "private"],
  ] as const)("refuses private %s", (url, reason) => expect(reasonOf(url)).toBe(reason));

  it.each([
    ["https://169.254.10.20/", "link_local"],
    ["https://[fe80::1]/", "link_local"],
  ] as const)("refuses link-local %s", (url, reason) => expect(reasonOf(url)).toBe(reason));

  it.each([
    ["https://169.254.169.254/latest/meta-data/", "metadata"],
    ["https://169.254.170.2/v2/credentials", "metadata"],
    ["https://[fd00:ec2::254]/", "metadata"],
    ["https://100.100.100.200/", "metadata"],
    ["https://metadata.google.internal/computeMetadata/v1/", "metadata"],
    ["https://metadata/", "metadata"],
  ] as const)("refuses metadata %s", (url, reason) => expect(reasonOf(url)).toBe(reason));

  it.each([
    ["https://0.0.0.0/", "reserved"],
    ["https://224.0.0.1/", "reserved"],
    ["https://255.255.255.255/", "reserved"],
    ["https://240.0.0.1/", "reserved"],
    ["https://[::]/", "reserved"],
  ] as const)("refuses reserved %s", (url, reason) => expect(reasonOf(url)).toBe(reason));

  it("refuses http, other schemes, credentials, public IP literals and local names", () => {
    expect(reasonOf("http://hooks.example.com/x")).toBe("scheme");
    expect(reasonOf("ftp://hooks.example.com/x")).toBe("scheme");
    expect(reasonOf("not a url")).toBe("scheme");
    expect(reasonOf("https://user:pass@hooks.example.com/x")).toBe("credentials");
    expect(reasonOf("https://token@hooks.example.com/x")).toBe("credentials");
    expect(reasonOf("https://93.184.215.14/x")).toBe("ip_literal");
    expect(reasonOf("https://[2606:4700::1111]/x")).toBe("ip_literal");
    expect(reasonOf("https://intranet/x")).toBe("local_name");
    expect(reasonOf("https://build.internal/x")).toBe("local_name");
    expect(reasonOf("https://printer.local/x")).toBe("local_name");
  });

  it("accepts an https URL on a public hostname (any port, path and query)", () => {
    expect(reasonOf("https://hooks.example.com/webhooks/verification?tenant=1")).toBe("ok");
    expect(reasonOf("https://hooks.example.com:8443/x")).toBe("ok");
  });

  it("classifies addresses", () => {
    expect(classifyAddress("8.8.8.8")).toBeNull();
    expect(classifyAddress("2606:4700:4700::1111")).toBeNull();
    expect(classifyAddress("127.0.0.1")).toBe("loopback");
    expect(classifyAddress("::ffff:169.254.169.254")).toBe("metadata");
    expect(classifyAddress("garbage")).toBe("reserved");
  });
});

describe("webhook URL guard: what the hostname resolves to", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["10.9.8.7", "private"],
    ["fe80::abcd", "link_local"],
    ["169.254.169.254", "metadata"],
    ["0.0.0.0", "reserved"],
  ] as const)("refuses a name resolving to %s (%s)", async (address, reason) => {
    const result = await guardWebhookUrl("https://sneaky.example.com/x", fixed({ "sneaky.example.com": ["93.184.215.14", address] }));
    expect(result).toMatchObject({ ok: false, reason });
  });

  it("accepts a name resolving only to public addresses; a resolver failure fails closed (unresolved)", async () => {
    expect(await guardWebhookUrl("https://ok.example.com/x", fixed({ "ok.example.com": ["93.184.215.14"] }))).toEqual({ ok: true });
    const failing: HostResolver = {
      async resolve() {
        throw new Error("resolver down");
      },
    };
    expect(await guardWebhookUrl("https://ok.example.com/x", failing)).toMatchObject({ ok: false, reason: "unresolved" });
  });

  it.each([
    ["::7f00:1", "loopback"], // IPv4-compatible ::127.0.0.1
    ["::127.0.0.1", "loopback"],
    ["::a00:1", "private"], // ::10.0.0.1
    ["::a9fe:a9fe", "metadata"], // ::169.254.169.254
    ["::ffff:0:7f00:1", "loopback"], // IPv4-translated (RFC 6145)
    ["64:ff9b::a9fe:a9fe", "metadata"], // NAT64 (RFC 6052)
    ["64:ff9b::c0a8:101", "private"],
    ["2002:7f00:1::1", "loopback"], // 6to4 of 127.0.0.1
    ["2002:a00:1::1", "private"],
    ["2001:0:7f00:1::1", "loopback"], // Teredo server 127.0.0.1
    ["::808:808", "reserved"], // IPv4-compatible form of a public address: still no webhook destination
    ["64:ff9b::808:808", "reserved"],
    ["64:ff9b:1::a00:1", "reserved"], // local-use NAT64
  ] as const)("classifies the IPv4 inside IPv6 %s as %s", async (address, reason) => {
    expect(classifyAddress(address)).toBe(reason);
    expect(reasonOf(`https://[${address}]/hook`)).toBe(reason);
    const result = await guardWebhookUrl("https://sneaky.example.com/x", fixed({ "sneaky.example.com": [address] }));
    expect(result).toMatchObject({ ok: false, reason });
  });

  it("asks a DNS-over-HTTPS resolver for A and AAAA records (loopback fake)", async () => {
    const doh = dohResolver({ url: `${env.FAKES_URL}/doh` });
    expect(await doh.resolve("hooks.example.com")).toEqual(["93.184.215.14"]);
    expect(await doh.resolve("db.private.test")).toEqual(["10.1.2.3"]);
    expect(await doh.resolve("router.linklocal.test")).toEqual(["fe80::1"]);
    expect(await doh.resolve("x.metadata.test")).toEqual(["169.254.169.254"]);
    expect(await doh.resolve("gone.nxdomain.test")).toEqual([]);
    await expect(doh.resolve("x.broken.test")).rejects.toThrow(/500/);
    expect(await guardWebhookUrl("https://x.metadata.test/hook", doh)).toMatchObject({ ok: false, reason: "metadata" });
  });
});
