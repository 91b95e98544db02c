// What Page Shield saw becomes file text as data: `${` in a seen URL is written `$${` (export's escape),
// so the drafted or merged file loads to the URL itself, reads no environment variable and fails no plan
// when one is unset; a look-alike host is never drafted as an entry (named as left out instead).
import { scriptInventoryOf } from "../../../src/sections/index.js";
import { describe, expect, it } from "vitest";
import { applyDefaults } from "../../../src/config/defaults.js";
import { parseConfigText } from "../../../src/config/index.js";
import type { SeenScript } from "../../../src/inventory/check.js";
import { draftInventory, withoutLookalikes } from "../../../src/inventory/yaml.js";
import { mergeInventory } from "../../../src/inventory/yaml-merge.js";

const NOW = new Date("2026-11-25T12:00:00Z");
const Z = "0123456789abcdef0123456789abcdef";
const ENV_URL = "https://cdn.pay.example/${env:CLOUDFLARE_API_TOKEN}/a.js?x=${env:HOME}";

const seen = (url: string, i: number): SeenScript => ({
  id: String(i).padStart(32, "0"),
  url,
  hash: "a".repeat(64),
  first_seen_at: "2026-11-01T00:00:00Z",
  last_seen_at: "2026-11-24T00:00:00Z",
  first_page_url: "pay.example/checkout",
  status: "active",
});

const SCRIPTS = [
  seen("https://js.stripe.com/v3/", 1),
  seen(ENV_URL, 2),
  seen("https://js.stripe.com.evil.example/skimmer.js", 3),
  seen("https://js.stripe.com@evil.example/skimmer.js", 4),
  seen("https://js.stri\u200bpe.com/v3/", 5),
];

function zoneFile(block: string): string {
  const indented = block
    .split("\n")
    .map((l) => (l === "" ? l : `      ${l}`))
    .join("\n");
  return `version: 1\nzones:\n  - zone_id: ${Z}\n    page_shield:\n${indented}\n`;
}

describe("drafts from hostile text", () => {
  it("writes ${ as $${, so the file loads to the URL itself with no variable read", () => {
    const text = draftInventory(SCRIPTS, { pages: ["pay.example/checkout*"], zone: "pay.example", now: NOW });
    expect(text).toContain("url: https://cdn.pay.example/$${env:CLOUDFLARE_API_TOKEN}/a.js?x=$${env:HOME}");
    // Loaded with an empty environment: no missing variable, and the url is the seen one.
    const { desired, warnings } = parseConfigText(zoneFile(text), "z.yaml", {});
    const urls = scriptInventoryOf(desired.zones[0]!)!.authorized.map((a) => a.url);
    expect(urls).toEqual(["https://cdn.pay.example/${env:CLOUDFLARE_API_TOKEN}/a.js?x=${env:HOME}", SCRIPTS[0]!.url]);
    // A draft's warnings only: each entry is a TODO with no owner until a person fills it in.
    expect(warnings.map((w) => w.message).filter((m) => !m.includes("TODO") && !m.includes("no owner"))).toEqual([]);
    // With the variables set, their values are not read into it either.
    const set = parseConfigText(zoneFile(text), "z.yaml", { CLOUDFLARE_API_TOKEN: "tok", HOME: "/root" });
    expect(scriptInventoryOf(set.desired.zones[0]!)!.authorized[0]!.url).toBe(ENV_URL);
  });

  it("leaves look-alikes out of the entries and names them in the header", () => {
    const drafted = draftInventory(SCRIPTS, { pages: ["pay.example/checkout*"], zone: "pay.example", now: NOW });
    // Comment lines fit 80 columns (issue 38): continuation lines joined back for the checks.
    const text = drafted.replace(/\n *#(?: {2}(?! )| {5,})/g, " ");
    expect(text).not.toMatch(/url: .*evil\.example/);
    expect(text).toContain("# Left out, 3 look-alikes of a trusted host (never authorize; remove from the page):");
    expect(text).toContain(
      "#   https://js.stripe.com.evil.example/skimmer.js: looks like js.stripe.com; js.stripe.com.evil.example " +
        "carries stripe.com in a longer name, but is under evil.example",
    );
    // The invisible character is shown as an escape in the comment, never as itself.
    expect(text).toContain("https://js.stri\\u200bpe.com/v3/: looks like js.stripe.com; invisible character U+200B");
    expect(text).not.toContain("\u200b");
    expect(text).toContain("2 scripts.");
  });
});

describe("merges from hostile text", () => {
  const file = [
    "version: 1",
    "zones:",
    `  - zone_id: ${Z}`,
    "    page_shield:",
    "      script_inventory:",
    "        pages: [pay.example/checkout*]",
    "        authorized:",
    "          - url: https://js.stripe.com/v3/*",
    "            justification: Stripe",
    "          - url: https://www.pay.example/assets/checkout.js",
    "            justification: ours",
    "",
  ].join("\n");

  it("escapes ${, leaves look-alikes of the file's entries out, and a second merge adds nothing", () => {
    const scripts = [
      ...SCRIPTS,
      seen("https://www.pay.example/assets/check\u200bout.js", 6),
      seen("https://www.pay-example.com/assets/checkout.js", 7),
    ];
    const r = mergeInventory(file, "f", scripts, {
      pages: ["pay.example/checkout*"],
      zone: { id: Z },
      now: NOW,
      defaults: applyDefaults,
    });
    expect(r.added.map((a) => a.url)).toEqual([ENV_URL]);
    expect(r.leftOut.map((l) => l.url)).toEqual([
      "https://js.stripe.com.evil.example/skimmer.js",
      "https://js.stripe.com@evil.example/skimmer.js",
      "https://js.stri\u200bpe.com/v3/",
      "https://www.pay-example.com/assets/checkout.js",
      "https://www.pay.example/assets/check\u200bout.js",
    ]);
    expect(r.text).toContain("url: https://cdn.pay.example/$${env:CLOUDFLARE_API_TOKEN}/a.js?x=$${env:HOME}");
    const loaded = parseConfigText(r.text, "z.yaml", {});
    expect(scriptInventoryOf(loaded.desired.zones[0]!)!.authorized.map((a) => a.url)).toContain(ENV_URL);
    const again = mergeInventory(r.text, "f", scripts, {
      pages: ["pay.example/checkout*"],
      zone: { id: Z },
      now: NOW,
      defaults: applyDefaults,
    });
    expect(again.added).toEqual([]);
    expect(again.text).toBe(r.text);
  });

  it("withoutLookalikes keeps what only looks like itself", () => {
    const { scripts, leftOut } = withoutLookalikes([seen("https://js.stripe.com/v3/", 1)], {
      pages: ["pay.example/checkout*"],
      authorized: [],
    });
    expect(scripts).toHaveLength(1);
    expect(leftOut).toEqual([]);
  });
});
