// SARIF positions of what a zone takes from its file's `defaults:` (docs/configuration.md#defaults): the
// line in defaults, never the zone's (audit -c's configPositions and inventory --merge FILE's); and an
// entry whose url holds `$${` (the file's escape of `${`) matches the script it names.
import { describe, expect, it } from "vitest";
import type { SeenScript } from "../../src/inventory/check.js";
import { inventorySarif } from "../../src/sarif/inventory.js";
import { configPositions } from "../../src/sarif/locate.js";

const Z = "0123456789abcdef0123456789abcdef";
const Y = "fedcba9876543210fedcba9876543210";
const NOW = new Date("2026-11-25T12:00:00Z");

const CONFIG = [
  "version: 1", // 1
  "defaults:", // 2
  "  page_shield:", // 3
  "    policies:", // 4
  "      - description: pay csp", // 5
  "        action: log", // 6
  "        value: script-src 'self'", // 7
  "    script_inventory:", // 8
  '      pages: ["pay.example/checkout*"]', // 9
  "      authorized:", // 10
  "        - url: https://js.stripe.com/v3/*", // 11
  "          justification: Stripe card form", // 12
  "        - url: https://cdn.pay.example/app.js", // 13
  "          justification: our checkout", // 14
  `          hash: ${"a".repeat(64)}`, // 15
  "        - url: https://cdn.pay.example/t.js?v=$${build}", // 16
  "          justification: tag with a literal ${ in its url", // 17
  "zones:", // 18
  `  - zone_id: ${Z}`, // 19
  "    name: pay.example", // 20
  `  - zone_id: ${Y}`, // 21
  "    name: own.example", // 22
  "    page_shield:", // 23
  "      script_inventory:", // 24
  '        pages: ["own.example/pay*"]', // 25
  "        authorized:", // 26
  "          - url: https://own.example/a.js", // 27
  "            justification: own", // 28
  "",
].join("\n");

const line = (p: { line: number } | undefined) => p?.line;

/** CONFIG with each entry reviewed (an owner under each justification): one line more per entry. */
const REVIEWED = CONFIG.replace(/^( *)justification: (.*)$/gm, "$1justification: $2\n$1owner: payments");

describe("SARIF positions of values from defaults", () => {
  const positions = configPositions([{ file: "zoneform.yaml", text: CONFIG }]);

  it("audit -c: a zone's inventory and policies taken from defaults are located there", () => {
    expect(line(positions.zone(Z))).toBe(19);
    expect(line(positions.inventory(Z))).toBe(10);
    expect(line(positions.entryCovering(Z, "https://js.stripe.com/v3/x.js"))).toBe(11);
    expect(line(positions.entry(Z, "https://cdn.pay.example/app.js"))).toBe(13);
    expect(line(positions.policy(Z, 0))).toBe(5);
    // A zone with its own inventory is located in the zone; its policies come from defaults.
    expect(line(positions.inventory(Y))).toBe(26);
    expect(line(positions.entryCovering(Y, "https://own.example/a.js"))).toBe(27);
    expect(line(positions.policy(Y, 0))).toBe(5);
  });

  it("a url written with $${ is the url with ${ it stands for", () => {
    expect(line(positions.entry(Z, "https://cdn.pay.example/t.js?v=${build}"))).toBe(16);
    expect(line(positions.entryCovering(Z, "https://cdn.pay.example/t.js?v=${build}"))).toBe(16);
    // Not the text as written: that is another url.
    expect(line(positions.entry(Z, "https://cdn.pay.example/t.js?v=$${build}"))).toBe(10);
  });

  it("inventory --merge FILE --format sarif: the zone's entries from defaults, $${ read back, located there", () => {
    const seen = (over: Partial<SeenScript>): SeenScript => ({
      id: "1".repeat(32),
      url: "https://js.stripe.com/v3/",
      last_seen_at: "2026-11-24T00:00:00Z",
      first_page_url: "pay.example/checkout",
      ...over,
    });
    const { log } = inventorySarif({
      zone: { id: Z, name: "pay.example" },
      pages: ["pay.example/checkout*"],
      scripts: [
        seen({}),
        seen({ id: "2".repeat(32), url: "https://cdn.pay.example/app.js", hash: "b".repeat(64) }),
        seen({ id: "3".repeat(32), url: "https://cdn.pay.example/t.js?v=${build}" }),
        seen({ id: "4".repeat(32), url: "https://skimmer.example/s.js" }),
      ],
      now: NOW,
      merge: { file: "zoneform.yaml", text: REVIEWED, label: "--merge zoneform.yaml" },
      version: "0.1.0",
    });
    const run = (log as any).runs[0];
    expect(
      run.results.map((x: any) => [
        x.ruleId,
        x.properties.subject ?? x.message.text.split(" ")[2],
        x.locations[0].physicalLocation.region.startLine,
      ]),
    ).toEqual([
      ["zoneform/unauthorized-script", expect.anything(), 10],
      ["zoneform/changed-script", expect.anything(), 14],
    ]);
    expect(run.results[0].message.text).toContain("https://skimmer.example/s.js");
    expect(run.properties.authorized).toBe(3);
  });
});
