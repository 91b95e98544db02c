// `--zone ID|NAME` of the commands that read the API without a file: what is an id, what is a name,
// what is refused, repeats, and the one lookup per name.
import { describe, expect, it } from "vitest";
import type { CloudflareClient } from "../../../src/cloudflare/types.js";
import { RuntimeError, UsageError } from "../../../src/errors.js";
import { lookUpZoneName, parseZoneRef, parseZoneRefs, resolveZoneRefs } from "../../../src/cli/zone-ref.js";

const ID = "5ababd603b22780302dd8d83498e5172";
const ID2 = "28bf0eba6631b5563247f1b42d9a7f17";

describe("parseZoneRef", () => {
  it("takes 32 hex characters as a zone id (lower-cased)", () => {
    expect(parseZoneRef(ID)).toEqual({ id: ID });
    expect(parseZoneRef(` ${ID.toUpperCase()} `)).toEqual({ id: ID });
  });

  it("takes a domain name as a zone name: lower-cased, final dot dropped, IDN as punycode", () => {
    expect(parseZoneRef("example.com")).toEqual({ name: "example.com" });
    expect(parseZoneRef("Shop.Example.CO.UK.")).toEqual({ name: "shop.example.co.uk" });
    expect(parseZoneRef("bücher.de")).toEqual({ name: "xn--bcher-kva.de" });
    expect(parseZoneRef("xn--bcher-kva.de")).toEqual({ name: "xn--bcher-kva.de" });
    expect(parseZoneRef("a-b.example")).toEqual({ name: "a-b.example" });
  });

  it.each([
    "",
    "example",
    "localhost",
    "1.2.3.4",
    "example.com/x",
    "https://example.com",
    "a b.com",
    "-bad.com",
    "bad-.com",
    "a..com",
    "*.example.com",
    "x_y.example.com",
    `${ID}0`,
    "g".repeat(32),
    `${"a".repeat(64)}.com`,
  ])("refuses %j with a usage error naming both forms", (value) => {
    expect(() => parseZoneRef(value)).toThrow(UsageError);
    expect(() => parseZoneRef(value)).toThrow(
      /expected a zone id \(32 hex characters\) or a zone name such as example\.com/,
    );
  });
});

describe("parseZoneRefs", () => {
  it("needs at least one --zone", () => {
    expect(() => parseZoneRefs(undefined, "audit")).toThrow("audit needs --zone ID|NAME");
    expect(() => parseZoneRefs([], "export")).toThrow(UsageError);
  });

  it("keeps the order and drops repeats of the same id or name", () => {
    expect(parseZoneRefs([ID, "example.com", ID.toUpperCase(), "EXAMPLE.com", ID2], "audit")).toEqual([
      { id: ID },
      { name: "example.com" },
      { id: ID2 },
    ]);
  });

  it("refuses a second zone for a one-zone command, saying why and what was given", () => {
    expect(parseZoneRefs([ID, ID], "csp suggest", { single: "a policy belongs to one zone" })).toEqual([{ id: ID }]);
    const err = (() => {
      try {
        parseZoneRefs(["example.com", "example.net"], "csp suggest", { single: "a policy belongs to one zone" });
      } catch (e) {
        return e as Error;
      }
    })();
    expect(err).toBeInstanceOf(UsageError);
    expect(err!.message).toBe(
      "csp suggest takes one --zone (a policy belongs to one zone); got 2: example.com, example.net. Run it " +
        "once per zone.",
    );
  });
});

/** A client whose `GET zones?name=` answers from `zones`, counting the calls. */
function fakeClient(zones: Array<{ id: string; name: string }>, answer?: unknown) {
  const calls: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const client = {
    async request(method: string, path: string, opts?: { query?: Record<string, unknown> }) {
      const name = String(opts?.query?.name);
      calls.push(`${method} ${path}?name=${name}`);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((r) => setTimeout(r, 5));
      inFlight--;
      return answer ?? zones.filter((z) => z.name === name);
    },
    // The lookup reads the list whole through listAll; this fake's list is one page.
    async listAll(path: string, opts?: { query?: Record<string, unknown> }) {
      return client.request("GET", path, opts);
    },
  } as unknown as CloudflareClient & { request: (m: string, p: string, o?: unknown) => Promise<unknown> };
  return { client, calls, maxInFlight: () => maxInFlight };
}

describe("resolveZoneRefs", () => {
  const zones = [
    { id: ID, name: "example.com" },
    { id: ID2, name: "example.net" },
  ];

  it("looks each name up once, in parallel, and keeps ids as given", async () => {
    const { client, calls, maxInFlight } = fakeClient(zones);
    const refs = parseZoneRefs(["example.com", "example.net", "EXAMPLE.COM", ID2, "f".repeat(32)], "audit");
    expect(await resolveZoneRefs(client, refs)).toEqual([ID, ID2, "f".repeat(32)]);
    expect(calls.sort()).toEqual(["GET zones?name=example.com", "GET zones?name=example.net"]);
    expect(maxInFlight()).toBe(2);
  });

  it("says when no zone of that name is visible to the token", async () => {
    const { client } = fakeClient(zones);
    await expect(lookUpZoneName(client, "example.org")).rejects.toThrow(RuntimeError);
    await expect(lookUpZoneName(client, "example.org")).rejects.toThrow(
      /^no zone named example\.org is visible to this token/,
    );
  });

  it("refuses a name several zones answer to, naming them, and an answer that is not a list", async () => {
    const twice = fakeClient([...zones, { id: "a".repeat(32), name: "example.com" }]);
    await expect(lookUpZoneName(twice.client, "example.com")).rejects.toThrow(
      `2 zones named example.com are visible to this token (${ID}, ${"a".repeat(32)}); pass the zone id`,
    );
    await expect(lookUpZoneName(fakeClient([], { id: ID }).client, "example.com")).rejects.toThrow(
      /not a list of zones/,
    );
  });

  it("keeps only exact matches of the API's answer", async () => {
    const loose = fakeClient(
      [],
      [
        { id: ID2, name: "shop.example.com" },
        { id: ID, name: "Example.com" },
      ],
    );
    expect(await lookUpZoneName(loose.client, "example.com")).toBe(ID);
  });
});
