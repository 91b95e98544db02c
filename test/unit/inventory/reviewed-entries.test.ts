// Issue 46, points 1 and 3: an entry authorizes a script only once a person has reviewed it (a
// justification that is not the draft's TODO, and an owner); a draft says what is new (a script first
// seen, or a version fetched, within the window) and never pins a hash without saying which version.
import { describe, expect, it } from "vitest";
import { checkInventory, draftReasons, type SeenScript } from "../../../src/inventory/check.js";
import { draftInventory, TODO_JUSTIFICATION } from "../../../src/inventory/yaml.js";
import { mergeInventory } from "../../../src/inventory/yaml-merge.js";
import { applyDefaults } from "../../../src/config/defaults.js";

const NOW = new Date("2026-11-22T12:00:00Z");
const SKIMMER = "https://cdn.skimmer.example/s.js";

const seen = (url: string, extra: Partial<SeenScript> = {}): SeenScript => ({
  id: url.length.toString(16).padStart(32, "0"),
  url,
  hash: "a".repeat(64),
  fetched_at: "2026-01-01T00:00:00Z",
  first_seen_at: "2026-01-01T00:00:00Z",
  last_seen_at: "2026-11-21T00:00:00Z",
  ...extra,
});

const joined = (text: string) => text.replace(/\n *#(?: {2}(?! )| {5,})/g, " ");

describe("authorized means reviewed", () => {
  it("reports a draft entry as unreviewed, whatever it matches, and never as ok", () => {
    const check = checkInventory(
      {
        pages: ["shop.example/checkout*"],
        authorized: [
          { url: SKIMMER, justification: TODO_JUSTIFICATION },
          { url: "https://js.stripe.com/v3/*", justification: "Stripe card form" },
          { url: "https://www.shop.example/app.js", justification: "our code", owner: " " },
          { url: "https://cdn.example/ok.js", justification: "reviewed", owner: "web" },
        ],
      },
      [seen(SKIMMER), seen("https://js.stripe.com/v3/x.js"), seen("https://cdn.example/ok.js")],
      new Map(),
      { now: NOW },
    );
    expect(check.authorized.map((r) => [r.url, r.state])).toEqual([
      [SKIMMER, "unreviewed"],
      ["https://js.stripe.com/v3/*", "unreviewed"],
      ["https://www.shop.example/app.js", "unreviewed"],
      ["https://cdn.example/ok.js", "ok"],
    ]);
    const unreviewed = check.findings.filter((f) => f.type === "unreviewed");
    expect(unreviewed.map((f) => [f.url, f.severity, f.requirement])).toEqual([
      ["https://cdn.skimmer.example/s.js", "high", "6.4.3"],
      ["https://js.stripe.com/v3/*", "high", "6.4.3"],
      ["https://www.shop.example/app.js", "high", "6.4.3"],
    ]);
    expect(unreviewed[0]!.message).toContain("its justification is the draft's TODO and it names no owner");
    expect(check.findings.filter((f) => f.type === "unauthorized")).toEqual([]);
  });

  it("says what a draft lacks", () => {
    expect(draftReasons({ url: "u", justification: TODO_JUSTIFICATION, owner: "x" })).toEqual([
      "its justification is the draft's TODO",
    ]);
    expect(draftReasons({ url: "u", justification: "why" })).toEqual(["it names no owner"]);
    expect(draftReasons({ url: "u", justification: "why", owner: "x" })).toEqual([]);
  });
});

describe("drafts say what is new", () => {
  const scripts = [
    seen("https://new.example/a.js", { first_seen_at: "2026-11-20T08:00:00Z", fetched_at: "2026-11-20T08:00:00Z" }),
    seen("https://old.example/changed.js", { fetched_at: "2026-11-18T09:30:00Z" }),
    seen("https://old.example/same.js"),
  ];

  it("marks a script first seen, or a version fetched, within the window, with the dates", () => {
    // Comment lines fit 80 columns: their continuation lines joined back for the checks.
    const text = joined(draftInventory(scripts, { pages: ["shop.example/checkout*"], zone: "shop.example", now: NOW }));
    const comment = (url: string) =>
      text
        .slice(0, text.indexOf(`url: ${url}`))
        .split("- url:")
        .at(-1)!;
    expect(comment("https://new.example/a.js")).toContain("NEW: first seen 2026-11-20T08:00:00Z (2 days ago)");
    expect(comment("https://old.example/changed.js")).toContain(
      "CHANGED: its current version was fetched on 2026-11-18T09:30:00Z (4 days ago)",
    );
    expect(comment("https://old.example/same.js")).not.toMatch(/NEW|CHANGED/);
    // A narrower window marks nothing; a wider one marks the old script too.
    expect(draftInventory(scripts, { pages: ["x.example/*"], zone: "x", now: NOW, recentDays: 1 })).not.toMatch(
      /NEW|CHANGED/,
    );
  });

  it("never pins a hash without saying which version it is", () => {
    const text = draftInventory(scripts, {
      pages: ["shop.example/checkout*"],
      zone: "shop.example",
      now: NOW,
      pinHashes: true,
    });
    expect(joined(text).match(/the hash pinned is the version Page Shield fetched on/g)).toHaveLength(3);
    const merged = mergeInventory(
      "script_inventory:\n  pages: [shop.example/checkout*]\n  authorized: []\n",
      "--merge f",
      scripts,
      { pages: ["shop.example/checkout*"], zone: { id: "z" }, now: NOW, pinHashes: true, defaults: applyDefaults },
    );
    expect(joined(merged.text)).toContain("NEW: first seen 2026-11-20T08:00:00Z");
    expect(joined(merged.text).match(/the hash pinned is the version/g)).toHaveLength(3);
  });
});
