// The seed's Page Shield inventory.
// Spec: docs/emulator.md, The seed.
import type { ZoneState } from "../../types.js";
import { addThreatScores, generateInventory } from "./inventory.js";

export function seedInventory(zone: ZoneState, now: number): void {
  const inventory = generateInventory({
    now,
    zoneId: zone.id,
    zoneName: zone.name,
    scripts: 20,
    connections: 10,
    cookies: 8,
    maliciousRatio: 0,
    seed: 1,
  });
  shapeSeedInventory(inventory, zone.name);
  zone.scripts = inventory.scripts;
  zone.connections = inventory.connections;
  zone.cookies = inventory.cookies;
}

/**
 * Makes the small seed inventory say what docs/emulator.md, "The seed", promises: one malicious script per verdict
 * score, one scored 30 that is not malicious (under the older threshold of 50), one infrequent script, one
 * malicious connection, insecure cookies.
 */
function shapeSeedInventory(inv: ReturnType<typeof generateInventory>, zoneName: string): void {
  for (const item of [...inv.scripts, ...inv.connections]) item.status = "active";
  const bad: Array<{
    index: number;
    url?: string;
    score: number;
    domain?: string;
    urlCategory?: string;
    low?: Record<string, number>;
  }> = [
    {
      index: 3,
      score: 12,
      url: "https://jquery-cdn-update.com/lib/jquery-3.7.1.min.js",
      domain: "Malware",
      low: { malware_score: 4 },
    },
    {
      index: 11,
      score: 31,
      url: "https://cdn-staticfiles.top/js/pay-widget.js",
      urlCategory: "Magecart",
      low: { magecart_score: 3 },
    },
    { index: 9, score: 64, url: "https://gstatic-cdn.org/js/ga-loader.js", low: { cryptomining_score: 2 } },
    { index: 5, score: 6, url: "https://analytics-sync.net/js/beacon.js" },
    { index: 12, score: 30 },
  ];
  for (const b of bad) {
    const s = inv.scripts[b.index]!;
    if (b.url) s.url = b.url;
    s.url_contains_cdn_cgi_path = false;
    s.js_integrity_score = b.score;
    s.versions = [{ hash: s.hash, js_integrity_score: b.score, fetched_at: s.fetched_at }];
    if (b.domain) {
      s.domain_reported_malicious = true;
      s.malicious_domain_categories = [b.domain];
    }
    if (b.urlCategory) {
      s.url_reported_malicious = true;
      s.malicious_url_categories = [b.urlCategory];
    }
    addThreatScores(s, false);
    Object.assign(s, b.low ?? {});
  }
  inv.scripts[7]!.status = "infrequent";
  const conn = inv.connections[4]!;
  conn.url = "https://collect.analytics-sync.net/c/checkout";
  conn.domain_reported_malicious = true;
  conn.malicious_domain_categories = ["Command and Control"];
  for (const i of [2, 5]) {
    const c = inv.cookies[i]!;
    c.secure_attribute = false;
    c.http_only_attribute = false;
    c.same_site_attribute = "none";
    c.domain_attribute = `.${zoneName}`;
  }
}
