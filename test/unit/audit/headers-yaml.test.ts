// `inventory --headers`'s YAML (src/inventory/yaml.ts, src/inventory/yaml-edit.ts): the pins drafted
// from what the pages send, and the merge that splices into a person's file only what it lacks, so
// that every byte written stays (a pinned value above all), falling back to writing the document
// again only where a splice cannot be made. Pure.
import { scriptInventoryOf } from "../../../src/sections/index.js";
import { parseDocument } from "yaml";
import { describe, expect, it } from "vitest";
import { applyDefaults } from "../../../src/config/defaults.js";
import { parseConfigText } from "../../../src/config/index.js";
import { addToYaml, YamlShapeError } from "../../../src/inventory/yaml-edit.js";
import { draftInventory, draftPins } from "../../../src/inventory/yaml.js";
import { mergeInventory } from "../../../src/inventory/yaml-merge.js";

const Z = "0123456789abcdef0123456789abcdef";
const NOW = new Date("2026-11-25T12:00:00Z");
const URL1 = "https://shop.example/checkout";
const URL2 = "https://shop.example/pay";

describe("draftPins", () => {
  it("pins the security headers every page sends alike, in a fixed order; the rest is uneven or left out", () => {
    const r = draftPins({
      pages: [
        { url: URL1, headers: { "x-frame-options": "DENY", "referrer-policy": "no-referrer", server: "x", hsts: "1" } },
        {
          url: URL2,
          headers: { "referrer-policy": "no-referrer", "x-frame-options": "SAMEORIGIN", "x-powered-by": "y" },
        },
      ],
    });
    expect(r.pinned).toEqual([["referrer-policy", "no-referrer"]]);
    expect(r.uneven).toEqual([
      {
        header: "x-frame-options",
        values: [
          { url: URL1, value: "DENY" },
          { url: URL2, value: "SAMEORIGIN" },
        ],
      },
    ]);
    const partial = draftPins({
      pages: [
        { url: URL1, headers: { "x-content-type-options": "nosniff" } },
        { url: URL2, headers: {} },
      ],
    });
    expect(partial.pinned).toEqual([]);
    expect(partial.uneven[0]!.values[1]).toEqual({ url: URL2, value: undefined });
  });
});

describe("draftInventory --headers", () => {
  it("writes headers: with the URLs and the pins, ${ escaped, control-free, and it loads back to the values", () => {
    const csp = "script-src 'self' https://cdn.example/${env:CLOUDFLARE_API_TOKEN}/; report-uri /r";
    const text = draftInventory([], {
      pages: ["shop.example/checkout*"],
      zone: "shop.example",
      now: NOW,
      headers: {
        pages: [{ url: URL1, headers: { "content-security-policy": csp, "referrer-policy": "no-referrer\u00ad" } }],
      },
    });
    expect(text).toContain(
      "  headers:\n    urls:\n      - https://shop.example/checkout\n    pinned:\n" +
        "      content-security-policy: script-src 'self' https://cdn.example/$${env:CLOUDFLARE_API_TOKEN}/; report-uri /r\n" +
        '      referrer-policy: "no-referrer\\u00ad"\n',
    );
    // Comment lines fit 80 columns (issue 38): continuation lines joined back for the check.
    expect(text.replace(/\n *#(?: {2}(?! )| {5,})/g, " ")).toContain(
      "# headers: the security headers https://shop.example/checkout sent on 2026-11-25, pinned",
    );
    const indented = text
      .split("\n")
      .filter((l) => !l.startsWith("#") && l !== "script_inventory:")
      .map((l) => (l === "" ? l : `      ${l}`))
      .join("\n");
    const { desired } = parseConfigText(
      `version: 1\nzones:\n  - zone_id: ${Z}\n    page_shield:\n      script_inventory:\n${indented}`,
      "z.yaml",
      {},
    );
    expect(scriptInventoryOf(desired.zones[0]!)!.headers!.pinned).toEqual({
      "content-security-policy": csp,
      "referrer-policy": "no-referrer\u00ad",
    });
  });

  it("names the headers the pages send unevenly in its header comment, escaped", () => {
    const text = draftInventory([], {
      pages: ["shop.example/*"],
      zone: "shop.example",
      now: NOW,
      headers: {
        pages: [
          { url: URL1, headers: { "x-frame-options": "DENY\u202e" } },
          { url: URL2, headers: {} },
        ],
      },
    });
    expect(text.replace(/\n *#(?: {2}(?! )| {5,})/g, " ")).toContain(
      '#   x-frame-options not pinned, the pages differ: https://shop.example/checkout sends "DENY\\u202e"; ' +
        "https://shop.example/pay sends none",
    );
    expect(text).not.toContain("\u202e");
    expect(text).toContain("    pinned: {}\n");
  });
});

describe("mergeInventory --headers", () => {
  const file = [
    "# the shop",
    "version: 1",
    "zones:",
    `  - zone_id: ${Z}    # pay`,
    "    page_shield:",
    "      script_inventory:",
    "        pages: [ shop.example/checkout* ]",
    "        authorized: []   # none yet",
    "        headers:",
    "          urls:",
    `            - ${URL1}   # the card page`,
    "          pinned:",
    "            content-security-policy: >-",
    "              script-src 'self';",
    "              object-src 'none'",
    "            x-frame-options:    'DENY'   # reviewed",
    '            referrer-policy: "no\\x2Dreferrer"',
    "",
  ].join("\n");
  const seen = {
    pages: [
      {
        url: URL2,
        headers: {
          "content-security-policy": "script-src 'self'; object-src 'none'",
          "x-frame-options": "SAMEORIGIN",
          "referrer-policy": "no-referrer",
          "cross-origin-opener-policy": "same-origin",
        },
      },
    ],
  };

  it("adds only the URLs and pins the file lacks, every byte of it kept, and says what differs", () => {
    const r = mergeInventory(file, "f", [], {
      pages: [],
      zone: { id: Z },
      now: NOW,
      defaults: applyDefaults,
      headers: seen,
    });
    expect(r.spliced).toBe(true);
    expect(r.text).toBe(
      file
        .replace(`   # the card page\n`, `   # the card page\n            - ${URL2}\n`)
        .replace(`"no\\x2Dreferrer"\n`, `"no\\x2Dreferrer"\n            cross-origin-opener-policy: same-origin\n`),
    );
    expect(r.headers).toEqual({
      urlsAdded: [URL2],
      pinsAdded: [["cross-origin-opener-policy", "same-origin"]],
      differing: [{ header: "x-frame-options", pinned: "DENY", sent: "SAMEORIGIN" }],
      notSent: [],
      uneven: [],
    });
    // A second merge finds nothing to add and leaves the text as it is.
    const again = mergeInventory(r.text, "f", [], {
      pages: [],
      zone: { id: Z },
      now: NOW,
      defaults: applyDefaults,
      headers: seen,
    });
    expect(again.text).toBe(r.text);
    expect(again.headers!.pinsAdded).toEqual([]);
  });

  it("creates headers: when the file has none, after the inventory's last key, in its indentation", () => {
    const bare =
      `version: 1\nzones:\n  - zone_id: ${Z}\n    page_shield:\n    \n      script_inventory:\n` +
      "         pages: [shop.example/checkout*]\n         authorized: []\n  - zone_id: x\n";
    const r = mergeInventory(bare, "f", [], {
      pages: [],
      zone: { id: Z },
      now: NOW,
      defaults: applyDefaults,
      headers: seen,
    });
    expect(r.spliced).toBe(true);
    expect(r.text).toBe(
      bare.replace(
        "         authorized: []\n",
        "         authorized: []\n         headers:\n           urls:\n             - https://shop.example/pay\n" +
          "           pinned:\n             content-security-policy: script-src 'self'; object-src 'none'\n" +
          "             x-frame-options: SAMEORIGIN\n             referrer-policy: no-referrer\n" +
          "             cross-origin-opener-policy: same-origin\n",
      ),
    );
    expect(r.headers!.notSent).toEqual([]);
  });

  it("a pin no page sends now is kept and named", () => {
    const r = mergeInventory(file, "f", [], {
      pages: [],
      zone: { id: Z },
      now: NOW,
      defaults: applyDefaults,
      headers: { pages: [{ url: URL1, headers: { "x-frame-options": "DENY" } }] },
    });
    expect(r.headers!.notSent).toEqual(["content-security-policy", "referrer-policy"]);
    expect(r.text).toBe(file);
  });

  it("refuses a headers block whose urls is not a list", () => {
    const bad = file.replace(`          urls:\n            - ${URL1}   # the card page\n`, "          urls: one\n");
    expect(() =>
      mergeInventory(bad, "f", [], { pages: [], zone: { id: Z }, now: NOW, defaults: applyDefaults, headers: seen }),
    ).toThrow("headers.urls must be a list and .pinned a mapping");
  });
});

describe("addToYaml", () => {
  const read = (t: string) => parseDocument(t).toJS();

  it("appends to block and flow collections, fills an empty flow one and a null key, keeping the rest", () => {
    const text = [
      "a:",
      "  list:",
      "  - one   # c1",
      "  # trailing",
      "  flow: [x, y]  # c2",
      "  empty: []   # c3",
      "  nothing:",
      "  tilde: ~",
      "b: 1",
    ].join("\n");
    const r = addToYaml(text, [
      { path: ["a", "list"], kind: "seq", items: ["two"] },
      { path: ["a", "flow"], kind: "seq", items: ["z w"] },
      { path: ["a", "empty"], kind: "seq", items: ["e"] },
      { path: ["a", "nothing", "deep"], kind: "map", pairs: [["k", "v"]] },
      { path: ["a", "tilde"], kind: "map", pairs: [["t", 1]] },
      { path: ["c", "d"], kind: "seq", items: [] },
    ]);
    expect(r.spliced).toBe(true);
    expect(r.text).toBe(
      [
        "a:",
        "  list:",
        "  - one   # c1",
        "  - two",
        "  # trailing",
        "  flow: [x, y, z w]  # c2",
        "  empty:   # c3",
        "    - e",
        "  nothing:",
        "    deep:",
        "      k: v",
        "  tilde:",
        "    t: 1",
        "b: 1",
        "c:",
        "  d: []",
        "",
      ].join("\n"),
    );
    expect(read(r.text)).toEqual({
      a: {
        list: ["one", "two"],
        flow: ["x", "y", "z w"],
        empty: ["e"],
        nothing: { deep: { k: "v" } },
        tilde: { t: 1 },
      },
      b: 1,
      c: { d: [] },
    });
  });

  it("keeps CRLF line ends, and adds to an empty document", () => {
    expect(addToYaml("a:\r\n  - x\r\n", [{ path: ["a"], kind: "seq", items: ["y"] }]).text).toBe(
      "a:\r\n  - x\r\n  - y\r\n",
    );
    expect(addToYaml("# only a comment\n", [{ path: ["p"], kind: "seq", items: ["q"] }]).text).toBe(
      "# only a comment\np:\n  - q\n",
    );
  });

  it("falls back to writing the document again where a splice cannot be made; refuses a scalar in the way", () => {
    expect(() => addToYaml("a: text\n", [{ path: ["a", "b"], kind: "seq", items: ["x"] }])).toThrow(
      new YamlShapeError(["a"]),
    );
    expect(() => addToYaml("a: [1]\n", [{ path: ["a"], kind: "map", pairs: [["k", 1]] }])).toThrow(YamlShapeError);
    const flowMaps = addToYaml("a: [{k: 1}, # c\n  ]\n", [{ path: ["a"], kind: "seq", items: [{ k: 2 }] }]);
    expect(flowMaps.spliced).toBe(false);
    expect(read(flowMaps.text)).toEqual({ a: [{ k: 1 }, { k: 2 }] });
  });
});

describe("mergeInventory into a file of another shape", () => {
  it("refuses, naming where, when a scalar stands where the inventory's mappings go", () => {
    const text = `version: 1\nzones:\n  - zone_id: ${Z}\n    page_shield: on\n`;
    expect(() =>
      mergeInventory(text, "--merge f", [], {
        pages: ["shop.example/checkout*"],
        zone: { id: Z },
        now: NOW,
        defaults: applyDefaults,
      }),
    ).toThrow("--merge f: expected a collection at zones.0.page_shield, where the inventory goes");
  });
});
