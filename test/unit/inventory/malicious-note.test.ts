// `inventory` drafts with the verdict `audit` uses (one function, src/inventory/classify.ts): a script
// Cloudflare's scores or reports call malicious is marked in the draft, never silently authorized.
// Thresholds: real-answers.md "js_integrity_score threshold" (10; magecart/malware/cryptomining: 10).
import { describe, expect, it } from "vitest";
import { seenScriptOf } from "../../../src/inventory/read.js";
import { draftInventory } from "../../../src/inventory/yaml.js";

const raw = (url: string, extra: Record<string, unknown> = {}) => ({
  id: url.slice(-8),
  url,
  js_integrity_score: 80,
  magecart_score: 70,
  malware_score: 70,
  cryptomining_score: 70,
  last_seen_at: "2026-11-20T00:00:00Z",
  first_page_url: "example.com/checkout",
  ...extra,
});

describe("inventory drafts and the malicious verdict", () => {
  it("marks a script malicious by a threat score, by integrity or by a report; not one scored 30", () => {
    expect(seenScriptOf(raw("https://a.test/skim.js", { magecart_score: 3 })).malicious).toEqual([
      "magecart_score 3 < 10",
    ]);
    expect(seenScriptOf(raw("https://a.test/x.js", { js_integrity_score: 30 })).malicious).toBeUndefined();
    expect(
      seenScriptOf(raw("https://a.test/x.js", { dataflow_score: 1, obfuscation_score: 1 })).malicious,
    ).toBeUndefined();
    expect(seenScriptOf(raw("https://a.test/r.js", { domain_reported_malicious: true })).malicious).toEqual([
      "domain reported malicious",
    ]);
  });

  it("says so in the draft, on its own comment line above the entry", () => {
    const scripts = [
      seenScriptOf(raw("https://a.test/skim.js", { cryptomining_score: 2 })),
      seenScriptOf(raw("https://b.test/ok.js")),
    ];
    const text = draftInventory(scripts, {
      pages: ["example.com/checkout"],
      zone: "example.com",
      now: new Date("2026-11-25T12:00:00Z"),
    });
    // Comment lines fit 80 columns (issue 38): the note is carried on an indented continuation line.
    const lines = text.replace(/\n *#(?: {2}(?! )| {5,})/g, " ").split("\n");
    const skim = lines.findIndex((l) => l.includes("- url: https://a.test/skim.js"));
    expect(lines[skim - 1]).toBe(
      "    # MALICIOUS (cryptomining_score 2 < 10): remove it from the page, do not authorize it",
    );
    for (const l of text.split("\n")) if (l.trimStart().startsWith("#")) expect(l.length).toBeLessThanOrEqual(80);
    expect(text.match(/MALICIOUS/g)).toHaveLength(1);
  });
});
