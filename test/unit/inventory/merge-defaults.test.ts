// `inventory --merge` into a zoneform file whose zone takes its inventory (or part of it) from the
// file's `defaults:` (docs/configuration.md#defaults): a list written in the zone would replace the
// default one whole, so what is added goes where the zone's list is written. Each case loads the
// result as the configuration does and checks the zone's inventory: nothing the zone had is lost.
import { describe, expect, it } from "vitest";
import { applyDefaults } from "../../../src/config/defaults.js";
import { parseConfigText } from "../../../src/config/index.js";
import { UsageError } from "../../../src/errors.js";
import type { SeenScript } from "../../../src/inventory/check.js";
import { mergeInventory } from "../../../src/inventory/yaml-merge.js";
import { existingPages } from "../../../src/inventory/yaml-locate.js";
import { scriptInventoryOf } from "../../../src/sections/page_shield/index.js";

const NOW = new Date("2026-11-22T12:00:00Z");
const Z = "0123456789abcdef0123456789abcdef";
const Y = "fedcba9876543210fedcba9876543210";
const STRIPE = "https://js.stripe.com/v3/*";
const NEW = "https://pay.example/new.js";

const seen = (url: string): SeenScript => ({
  id: "1".repeat(32),
  url,
  first_page_url: "pay.example/checkout",
  last_seen_at: "2026-11-21T00:00:00Z",
});
const SCRIPTS = [seen("https://js.stripe.com/v3/elements.js"), seen(NEW)];

const DEFAULTS = [
  "version: 1",
  "defaults:",
  "  page_shield:",
  "    script_inventory:",
  "      pages: [pay.example/checkout*]",
  "      authorized:",
  `        - url: ${STRIPE}`,
  "          justification: Stripe card form # reviewed",
  "zones:",
  `  - zone_id: ${Z}`,
  "    name: pay.example",
];
const other = (...lines: string[]) => [`  - zone_id: ${Y}`, "    name: other.example", ...lines];
const text = (lines: string[]) => `${lines.join("\n")}\n`;

/** The zones' inventories as the configuration loads them (authorized urls and pages). */
function inventories(file: string): Record<string, { pages: string[]; urls: string[] } | undefined> {
  const { desired } = parseConfigText(file, "zoneform.yaml", {});
  return Object.fromEntries(
    desired.zones.map((z) => {
      const inv = scriptInventoryOf(z);
      return [z.zone_id, inv ? { pages: inv.pages, urls: inv.authorized.map((a) => a.url) } : undefined];
    }),
  );
}

const merge = (file: string, over: { pages?: string[]; intoDefaults?: boolean; zone?: string } = {}) =>
  mergeInventory(file, "--merge zoneform.yaml", SCRIPTS, {
    pages: over.pages ?? [],
    zone: { id: over.zone ?? Z },
    now: NOW,
    defaults: applyDefaults,
    ...(over.intoDefaults ? { intoDefaults: true } : {}),
  });

describe("inventory --merge with the inventory in defaults", () => {
  it("reads the zone's pages and entries from defaults: a script a default entry covers is not added", () => {
    const file = text(DEFAULTS);
    expect(existingPages(file, "f", { id: Z }, applyDefaults)).toEqual(["pay.example/checkout*"]);
    const r = merge(file);
    expect(r.added.map((a) => a.url)).toEqual([NEW]);
  });

  it("used by this zone only: adds to defaults (the same as the zone's own list), every byte kept", () => {
    const file = text(DEFAULTS);
    const r = merge(file, { pages: ["pay.example/pay/*"] });
    expect(r.where).toBe("defaults.page_shield.script_inventory");
    expect(r.spliced).toBe(true);
    expect(r.text).toContain("justification: Stripe card form # reviewed");
    // The zone itself is left as written: nothing was written under it.
    expect(r.text.endsWith(`  - zone_id: ${Z}\n    name: pay.example\n`)).toBe(true);
    expect(inventories(r.text)[Z]).toEqual({
      pages: ["pay.example/checkout*", "pay.example/pay/*"],
      urls: [STRIPE, NEW],
    });
  });

  it("shared with other zones: refused, naming them and the way out; --into-defaults adds there for all", () => {
    const file = text([...DEFAULTS, ...other()]);
    expect(() => merge(file)).toThrow(UsageError);
    expect(() => merge(file)).toThrow(
      "--merge zoneform.yaml: zone pay.example takes page_shield.script_inventory.authorized from defaults:, " +
        "as do other.example; written in the zone, this list would replace the one in defaults whole, dropping " +
        "the entries there. Give --into-defaults to add to defaults: for every zone that takes it, or write " +
        "the zone's own list under the zone (with the entries of defaults it keeps) and merge again",
    );
    // Nothing to add to a shared list: nothing refused (a page pattern too would be).
    const none = mergeInventory(file, "f", [seen("https://js.stripe.com/v3/x.js")], {
      pages: [],
      zone: { id: Z },
      now: NOW,
      defaults: applyDefaults,
    });
    expect(none.added).toEqual([]);
    expect(none.text).toBe(file);
    expect(() => merge(file, { pages: ["pay.example/pay/*"] })).toThrow(
      "takes page_shield.script_inventory.pages and page_shield.script_inventory.authorized from defaults:",
    );

    const r = merge(file, { intoDefaults: true });
    expect(r.where).toBe("defaults.page_shield.script_inventory");
    const after = inventories(r.text);
    expect(after[Z]?.urls).toEqual([STRIPE, NEW]);
    expect(after[Y]?.urls).toEqual([STRIPE, NEW]);
  });

  it("a zone with its own list gets the additions there; another zone's own list does not share defaults'", () => {
    // other.example writes its own inventory: pay.example alone takes defaults'.
    const file = text([
      ...DEFAULTS,
      ...other(
        "    page_shield:",
        "      script_inventory:",
        "        pages: [other.example/pay*]",
        "        authorized: []",
      ),
    ]);
    const r = merge(file);
    expect(r.where).toBe("defaults.page_shield.script_inventory");
    expect(inventories(r.text)[Y]?.urls).toEqual([]);
    // other.example's own (empty) list: the entries go under it.
    const o = merge(file, { zone: Y });
    expect(o.where).toBe("zones[1].page_shield.script_inventory");
    expect(inventories(o.text)[Y]?.urls).toEqual(["https://js.stripe.com/v3/elements.js", NEW]);
    expect(inventories(o.text)[Z]?.urls).toEqual([STRIPE]);
  });

  it("own pages, entries from defaults shared: pages go in the zone, no empty list hides defaults' entries", () => {
    const file = text([
      ...DEFAULTS,
      "    page_shield:",
      "      script_inventory:",
      "        pages: [pay.example/checkout*]",
      ...other(),
    ]);
    const only = mergeInventory(file, "f", [seen("https://js.stripe.com/v3/x.js")], {
      pages: ["pay.example/pay/*"],
      zone: { id: Z },
      now: NOW,
      defaults: applyDefaults,
    });
    expect(only.where).toBe("zones[0].page_shield.script_inventory");
    expect(only.text).not.toContain("authorized: []");
    expect(inventories(only.text)[Z]).toEqual({
      pages: ["pay.example/checkout*", "pay.example/pay/*"],
      urls: [STRIPE],
    });
  });

  it("script_inventory: null takes defaults' out: the zone's own inventory is created in the zone", () => {
    const file = text([...DEFAULTS, "    page_shield: { script_inventory: null }", ...other()]);
    expect(existingPages(file, "f", { id: Z }, applyDefaults)).toEqual([]);
    const r = merge(file, { pages: ["pay.example/checkout*"] });
    expect(r.where).toBe("zones[0].page_shield.script_inventory");
    expect(inventories(r.text)[Z]?.urls).toEqual(["https://js.stripe.com/v3/elements.js", NEW]);
    expect(inventories(r.text)[Y]?.urls).toEqual([STRIPE]);
  });

  it("--headers: pins merge key by key, so they go in the zone; the URLs list follows the lists' rule", () => {
    const file = text([
      "version: 1",
      "defaults:",
      "  page_shield:",
      "    script_inventory:",
      "      pages: [pay.example/checkout*]",
      "      authorized: []",
      "      headers:",
      "        urls: [https://pay.example/checkout]",
      "        pinned: { x-frame-options: DENY }",
      "zones:",
      `  - zone_id: ${Z}`,
      "    name: pay.example",
      "    page_shield:",
      "      script_inventory:",
      "        authorized: []",
      ...other(),
    ]);
    const headers = (url: string) => ({
      pages: [{ url, headers: { "x-frame-options": "DENY", "referrer-policy": "no-referrer" } }],
    });
    const base = { pages: [], zone: { id: Z }, now: NOW, defaults: applyDefaults };
    const pins = mergeInventory(file, "f", [], { ...base, headers: headers("https://pay.example/checkout") });
    expect(pins.headers?.pinsAdded).toEqual([["referrer-policy", "no-referrer"]]);
    expect(pins.where).toBe("zones[0].page_shield.script_inventory");
    const { desired } = parseConfigText(pins.text, "zoneform.yaml", {});
    expect(scriptInventoryOf(desired.zones[0]!)?.headers).toEqual({
      urls: ["https://pay.example/checkout"],
      pinned: { "x-frame-options": "DENY", "referrer-policy": "no-referrer" },
    });
    expect(scriptInventoryOf(desired.zones[1]!)?.headers?.pinned).toEqual({ "x-frame-options": "DENY" });
    expect(() => mergeInventory(file, "f", [], { ...base, headers: headers("https://pay.example/pay") })).toThrow(
      "takes page_shield.script_inventory.headers.urls from defaults:, as do other.example",
    );
  });
});
