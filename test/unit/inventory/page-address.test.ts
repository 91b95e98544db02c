// Issue 45: the addresses a payment page may be fetched from (src/inventory/page-address.ts). Every spelling
// of a non-public address the URL parser normalizes is refused once parsed; IPv4-mapped, NAT64 and 6to4 forms
// of an IPv4 range are refused as the range is; a name's DNS answers are checked by the connection's own
// lookup, which resolves once and hands the socket exactly the checked addresses.
import { describe, expect, it } from "vitest";
import {
  guardedLookup,
  isLoopbackHostname,
  nonPublicAddress,
  type PageResolver,
  refusedAddress,
} from "../../../src/inventory/page-address.js";
import { targetProblem } from "../../../src/inventory/page-fetch.js";

/** The host of a URL as the fetch sees it (after the WHATWG URL parser), classified. */
function hostOf(url: string): string {
  return new URL(url).hostname;
}

describe("non-public addresses, however the URL spells them", () => {
  const loopback: Array<[string, string]> = [
    ["https://127.0.0.1/", "127.0.0.1"],
    ["https://127.1/", "127.0.0.1"],
    ["https://2130706433/", "127.0.0.1"],
    ["https://0x7f.1/", "127.0.0.1"],
    ["https://0x7f000001/", "127.0.0.1"],
    ["https://017700000001/", "127.0.0.1"],
    ["https://0177.0.0.1/", "127.0.0.1"],
    ["https://127.0.0.1./", "127.0.0.1"],
    ["https://%31%32%37.0.0.1/", "127.0.0.1"],
    ["https://[::1]/", "[::1]"],
    ["https://[0:0:0:0:0:0:0:1]/", "[::1]"],
    ["https://[::ffff:127.0.0.1]/", "[::ffff:7f00:1]"],
    ["https://[::ffff:7f00:1]/", "[::ffff:7f00:1]"],
    ["https://[0:0:0:0:0:ffff:7f00:1]/", "[::ffff:7f00:1]"],
  ];
  for (const [url, host] of loopback)
    it(`${url} is ${host}, a loopback address`, () => {
      expect(hostOf(url)).toBe(host);
      expect(nonPublicAddress(hostOf(url))?.what).toMatch(/^a loopback address \((127\.0\.0\.0\/8|::1\/128)\)$/);
      expect(isLoopbackHostname(hostOf(url))).toBe(true);
    });

  const refused: Array<[string, RegExp]> = [
    ["https://169.254.169.254/latest/meta-data/", /link-local/],
    ["https://[::ffff:169.254.169.254]/", /link-local/],
    ["https://[::ffff:a9fe:a9fe]/", /link-local/],
    ["https://10.1.2.3/", /private address \(RFC 1918\) \(10\.0\.0\.0\/8\)/],
    ["https://172.16.0.1/", /RFC 1918/],
    ["https://172.31.255.255/", /RFC 1918/],
    ["https://192.168.1.1/", /RFC 1918/],
    ["https://3232235777/", /RFC 1918/],
    ["https://[::ffff:10.0.0.1]/", /RFC 1918/],
    ["https://100.64.0.1/", /CGNAT/],
    ["https://100.127.255.255/", /CGNAT/],
    ["https://0.0.0.0/", /this network/],
    ["https://0/", /this network/],
    ["https://[::]/", /unspecified/],
    ["https://224.0.0.1/", /multicast/],
    ["https://[ff02::1]/", /multicast/],
    ["https://255.255.255.255/", /broadcast/],
    ["https://240.0.0.1/", /reserved/],
    ["https://192.0.2.10/", /documentation/],
    ["https://198.51.100.10/", /documentation/],
    ["https://203.0.113.10/", /documentation/],
    ["https://[2001:db8::1]/", /documentation/],
    ["https://[fe80::1]/", /^a link-local address \(fe80::.10\)$/],
    ["https://[fd00::1]/", /unique local/],
    ["https://[fc00::1]/", /unique local/],
    ["https://[64:ff9b::7f00:1]/", /loopback address through NAT64/],
    ["https://[64:ff9b::a9fe:a9fe]/", /link-local address .* through NAT64/],
    ["https://[2002:7f00:1::1]/", /loopback address through 6to4/],
    ["https://[2002:c0a8:101::1]/", /RFC 1918\) through 6to4/],
    ["https://[::7f00:1]/", /IPv4-compatible/],
    ["https://[100::1]/", /discard-only/],
  ];
  for (const [url, what] of refused)
    it(`${url} is refused: ${what.source}`, () => {
      const r = nonPublicAddress(hostOf(url));
      expect(r?.what).toMatch(what);
      expect(isLoopbackHostname(hostOf(url))).toBe(false);
    });

  it("public addresses pass, in every family and form", () => {
    for (const url of [
      "https://93.184.215.14/",
      "https://1.1.1.1/",
      "https://172.32.0.1/",
      "https://100.128.0.1/",
      "https://[2606:4700::1111]/",
      "https://[::ffff:8.8.8.8]/",
      "https://[64:ff9b::808:808]/",
      "https://[2002:808:808::1]/",
    ])
      expect(nonPublicAddress(hostOf(url)), url).toBeUndefined();
  });

  it("IPv6 outside global unicast is not public", () => {
    expect(nonPublicAddress("4000::1")?.what).toBe("not a global unicast address (2000::/3)");
  });

  it("allowing private addresses allows loopback and private ranges, never unspecified, multicast or broadcast", () => {
    expect(refusedAddress("127.0.0.1", true)).toBeUndefined();
    expect(refusedAddress("169.254.169.254", true)).toBeUndefined();
    expect(refusedAddress("::ffff:7f00:1", true)).toBeUndefined();
    for (const a of ["0.0.0.0", "::", "224.0.0.1", "255.255.255.255", "ff02::1"])
      expect(refusedAddress(a, true)?.always, a).toBe(true);
    expect(refusedAddress("127.0.0.1", false)?.always).toBe(false);
  });

  it("a name is never an address: only `localhost` is this machine by its spelling", () => {
    expect(isLoopbackHostname("localhost")).toBe(true);
    expect(isLoopbackHostname("LOCALHOST")).toBe(true);
    expect(isLoopbackHostname("127.0.0.1.nip.io")).toBe(false);
    expect(nonPublicAddress("pay.example")?.what).toBe("not an IP address");
  });
});

describe("a page's URL and each redirect's target (targetProblem)", () => {
  it("an IP literal that is not public is refused, and says how to allow it", () => {
    const p = targetProblem(new URL("https://2130706433/checkout"), false);
    expect(p?.problem).toBe("private-address");
    expect(p?.reason).toContain("127.0.0.1 is a loopback address (127.0.0.0/8): not fetched");
    expect(p?.reason).toContain("--allow-private-addresses (ZONEFORM_ALLOW_PRIVATE_ADDRESSES=1");
    expect(targetProblem(new URL("https://2130706433/checkout"), true)).toBeUndefined();
  });

  it("a redirect to 127.0.0.1 when not allowed is refused at the hop, whatever it is spelled", () => {
    for (const location of ["https://127.0.0.1/", "http://[::ffff:7f00:1]:8080/x", "https://0x7f.1/"])
      expect(targetProblem(new URL(location, "https://pay.example/checkout"), false)?.problem, location).toBe(
        "private-address",
      );
  });

  it("plain http: only to a loopback host, only when private addresses are allowed", () => {
    expect(targetProblem(new URL("http://127.0.0.1:8080/"), true)).toBeUndefined();
    expect(targetProblem(new URL("http://localhost:8080/"), true)).toBeUndefined();
    expect(targetProblem(new URL("http://[::1]:8080/"), true)).toBeUndefined();
    expect(targetProblem(new URL("http://localhost:8080/"), false)?.problem).toBe("private-address");
    expect(targetProblem(new URL("http://127.0.0.1:8080/"), false)?.problem).toBe("private-address");
    expect(targetProblem(new URL("http://pay.example/"), false)?.problem).toBe("insecure");
    expect(targetProblem(new URL("http://pay.example/"), true)?.problem).toBe("insecure");
    expect(targetProblem(new URL("http://10.0.0.1/"), true)?.problem).toBe("insecure");
    expect(targetProblem(new URL("http://0.0.0.0:8080/"), true)?.reason).toContain("never fetched");
  });

  it("a name over https passes here: its addresses are checked when it is resolved", () => {
    expect(targetProblem(new URL("https://pay.example/checkout"), false)).toBeUndefined();
  });
});

/** A fake DNS that counts its lookups. */
function fakeDns(answers: Record<string, Array<{ address: string; family: number }>>) {
  const asked: Array<{ hostname: string; family: number }> = [];
  const resolve: PageResolver = async (hostname, family) => {
    asked.push({ hostname, family });
    return answers[hostname] ?? [];
  };
  return { resolve, asked };
}

/** The lookup's answer as a callback gives it. */
function lookupWith(
  lookup: ReturnType<typeof guardedLookup>,
  hostname: string,
  options: { all?: boolean; family?: number | string },
): Promise<{ err: Error | null; address: unknown; family?: number }> {
  return new Promise((resolve) =>
    lookup(hostname, options, (err, address, family) => resolve({ err, address, family })),
  );
}

describe("guardedLookup: the connection's one name resolution", () => {
  const dns = () =>
    fakeDns({
      "pay.example": [
        { address: "93.184.215.14", family: 4 },
        { address: "2606:2800:21f:cb07:6820:80da:af6b:8b2c", family: 6 },
      ],
      "rebind.example": [
        { address: "93.184.215.14", family: 4 },
        { address: "10.0.0.7", family: 4 },
      ],
      "metadata.example": [{ address: "::ffff:169.254.169.254", family: 6 }],
      "local.example": [{ address: "127.0.0.1", family: 4 }],
    });

  it("with all: every checked address, in the resolver's order; resolved once", async () => {
    const { resolve, asked } = dns();
    const r = await lookupWith(guardedLookup(resolve, false), "pay.example", { all: true });
    expect(r.err).toBeNull();
    expect(r.address).toEqual([
      { address: "93.184.215.14", family: 4 },
      { address: "2606:2800:21f:cb07:6820:80da:af6b:8b2c", family: 6 },
    ]);
    expect(asked).toEqual([{ hostname: "pay.example", family: 0 }]);
  });

  it("without all: the first checked address and its family; the family asked is passed on", async () => {
    const { resolve, asked } = dns();
    const r = await lookupWith(guardedLookup(resolve, false), "pay.example", { family: 4 });
    expect(r).toEqual({ err: null, address: "93.184.215.14", family: 4 });
    expect(asked).toEqual([{ hostname: "pay.example", family: 4 }]);
  });

  it("one private answer among public ones refuses the name, naming the address", async () => {
    const { resolve, asked } = dns();
    for (const all of [true, false]) {
      const r = await lookupWith(guardedLookup(resolve, false), "rebind.example", { all });
      expect(r.err?.message).toBe("rebind.example resolves to 10.0.0.7, a private address (RFC 1918) (10.0.0.0/8)");
      expect((r.err as { code?: string }).code).toBe("ZONEFORM_PRIVATE_ADDRESS");
    }
    expect(asked).toHaveLength(2);
  });

  it("an IPv4-mapped answer is judged as its IPv4 address", async () => {
    const { resolve } = dns();
    const r = await lookupWith(guardedLookup(resolve, false), "metadata.example", { all: true });
    expect(r.err?.message).toContain("resolves to ::ffff:169.254.169.254, a link-local address");
  });

  it("allowed, a private answer is handed on as it was checked", async () => {
    const { resolve, asked } = dns();
    const r = await lookupWith(guardedLookup(resolve, true), "local.example", { all: true });
    expect(r).toMatchObject({ err: null, address: [{ address: "127.0.0.1", family: 4 }] });
    expect(asked).toHaveLength(1);
  });

  it("no answer, or the resolver's error, fails the connection", async () => {
    const { resolve } = dns();
    expect((await lookupWith(guardedLookup(resolve, false), "none.example", { all: true })).err?.message).toBe(
      "none.example has no address",
    );
    const failing: PageResolver = async () => {
      throw Object.assign(new Error("getaddrinfo ENOTFOUND x"), { code: "ENOTFOUND" });
    };
    expect((await lookupWith(guardedLookup(failing, false), "x", { all: true })).err?.message).toBe(
      "getaddrinfo ENOTFOUND x",
    );
  });
});
