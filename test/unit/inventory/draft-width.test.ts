// Issue 38: an inventory draft's comment lines stay within 80 columns (a long URL carried on, never
// lost), and `--merge` leaves every line it did not add byte for byte as the file had it.
import { describe, expect, it } from "vitest";
import { applyDefaults } from "../../../src/config/defaults.js";
import type { SeenScript } from "../../../src/inventory/check.js";
import { draftInventory } from "../../../src/inventory/yaml.js";
import { mergeInventory } from "../../../src/inventory/yaml-merge.js";
import { displayWidth } from "../../../src/text-width.js";

const Z = "0123456789abcdef0123456789abcdef";
const NOW = new Date("2026-11-21T12:00:00Z");
const LONG_PAGE = `https://shop.example.com/checkout/payment/step-two/card-details?session=${"s".repeat(24)}`;
const LONG_URL = `https://cdn.payments-vendor.example/assets/v3/build-${"0123456789abcdef".repeat(3)}/widget.min.js`;

const seen = (url: string, extra: Partial<SeenScript> = {}): SeenScript => ({
  id: url.length.toString(16).padStart(32, "0"),
  url,
  hash: "a".repeat(64),
  first_seen_at: "2026-01-01T00:00:00Z",
  last_seen_at: "2026-11-21T00:00:00Z",
  first_page_url: LONG_PAGE,
  status: "active",
  ...extra,
});

const scripts = [seen(LONG_URL), seen("https://js.stripe.com/v3/", { malicious: ["cryptomining", "magecart"] })];

describe("inventory comment lines at 80 columns", () => {
  it("a draft's comment lines fit 80 columns, their words all kept", () => {
    const text = draftInventory(scripts, {
      pages: ["shop.example.com/checkout/*", "shop.example.com/payment/*"],
      zone: "shop.example.com",
      now: NOW,
      headers: {
        pages: [
          { url: LONG_PAGE, headers: { "content-security-policy": "default-src 'self'" } },
          { url: "https://shop.example.com/pay", headers: { "content-security-policy": "default-src 'none'" } },
        ],
      },
    });
    const comments = text.split("\n").filter((l) => l.trimStart().startsWith("#"));
    expect(comments.length).toBeGreaterThan(5);
    for (const l of comments) expect(displayWidth(l), l).toBeLessThanOrEqual(80);
    const joined = comments.map((l) => l.trim().replace(/^#\s*/, "")).join("");
    // The long URLs are carried over lines, not cut.
    expect(joined.replace(/\s/g, "")).toContain(LONG_PAGE);
    expect(joined).toContain("MALICIOUS (cryptomining; magecart)");
    // Every value line is as long as it needs (the YAML is not fitted).
    expect(text).toContain(`- url: ${LONG_URL}`);
  });

  it("merge: the added entries' comments fit 80 columns at a zone file's depth; untouched lines are byte-identical", () => {
    const file = [
      "# header comment",
      "version: 1",
      "zones:",
      `  - zone_id: ${Z} # the shop`,
      "    page_shield:",
      "      script_inventory:",
      "        pages: [ shop.example.com/checkout* ]",
      "        authorized:",
      "          # reviewed by payments",
      "          - url:   https://js.stripe.com/v3/*",
      "            justification: 'Stripe card form'   # keep",
      "    logs:",
      "      custom_fields:",
      "        request_headers: [x-request-id]",
      "        response_headers:   [ cache-control ]   # spacing as a person wrote it",
      "",
    ].join("\n");
    const r = mergeInventory(file, "f", scripts, {
      pages: ["shop.example.com/checkout*"],
      zone: { id: Z },
      now: NOW,
      defaults: applyDefaults,
    });
    expect(r.added.map((a) => a.url)).toEqual([LONG_URL]);
    expect(r.spliced).toBe(true);
    const lines = r.text.split("\n");
    // Every line of the file is there as it was, in order; what is new is only the added entry.
    let at = 0;
    for (const original of file.split("\n")) {
      const found = lines.indexOf(original, at);
      expect(found, `kept as written: ${JSON.stringify(original)}`).toBeGreaterThanOrEqual(at);
      at = found + 1;
    }
    expect(r.text).toContain("request_headers: [x-request-id]\n");
    expect(r.text).not.toContain("[ x-request-id ]");
    const added = lines.filter((l) => !file.split("\n").includes(l));
    for (const l of added.filter((l) => l.trimStart().startsWith("#")))
      expect(displayWidth(l), l).toBeLessThanOrEqual(80);
  });
});
