// The default state the emulator starts with (and returns to on reset): one account, four zones of
// the four plans, a few custom hostnames (one with an uploaded certificate on example.com) and a small
// Page Shield inventory each. Fully deterministic for a given instant: zone ids are md5(name), hostname
// ids UUIDs derived from the name, timestamps counted back from the emulator's clock (`now`), so docs
// and tests can name everything, and the data never ages out of a 90-day window whatever the date.
import { addThreatScores, generateInventory } from "./areas/page-shield/inventory.js";
import { seedSsl } from "./areas/custom-hostnames/ssl.js";
import { uuidFrom, zoneIdFor } from "./ids.js";
import { seedAccountRulesets } from "./areas/rulesets/seed.js";
import type { EmulatorState, ZonePlanName, ZoneState } from "./types.js";

export const SEED_ACCOUNT_ID = "0123456789abcdef0123456789abcdef";
/**
 * A fixed past instant, for the few timestamps no window counts from (a token's issued_on, a state
 * file's missing account rulesets). Everything the seed dates is counted back from the clock instead.
 */
export const SEED_TIME = "2025-06-01T12:00:00.000Z";
export const DEFAULT_TOKEN = "emulator-token";
export const DEFAULT_EMAIL = "user@example.com";
export const DEFAULT_KEY = "emulator-key";
export const DEFAULT_RATE_LIMIT = { requests: 1200, seconds: 300 };

const SEED_ZONES: Array<{ name: string; plan: ZonePlanName; hostnames: number }> = [
  { name: "example.com", plan: "enterprise", hostnames: 5 },
  { name: "example.net", plan: "business", hostnames: 4 },
  { name: "example.org", plan: "pro", hostnames: 3 },
  { name: "example.dev", plan: "free", hostnames: 3 },
];

/**
 * Customer hostnames per zone: sub-domain, customer, DCV method, CA and whether the certificate is
 * uploaded. A CA of "" was created with the service default and reads back the CA the service picked
 * (custom-hostname-ssl.ts). The uploaded certificate (example.com only) has no CA to change; its
 * `digicert` is what the recorded uploaded certificate (cft_custom_hostnames_v4) shows.
 */
const CUSTOMERS: Array<{ sub: string; customer: string; method: "http" | "txt"; ca: string; uploaded?: boolean }> = [
  { sub: "shop", customer: "acme", method: "http", ca: "lets_encrypt" },
  { sub: "app", customer: "globex", method: "txt", ca: "google" },
  { sub: "portal", customer: "initech", method: "http", ca: "digicert" },
  { sub: "api", customer: "umbrella", method: "txt", ca: "" },
  { sub: "secure", customer: "hooli", method: "http", ca: "digicert", uploaded: true },
];

/** The seed as it is at `now` (ms since the epoch; default the system clock, in whole seconds). */
export function defaultState(opts: { now?: number } = {}): EmulatorState {
  const now = Math.floor((opts.now ?? Date.now()) / 1000) * 1000;
  const seedTime = new Date(now).toISOString();
  return {
    account_id: SEED_ACCOUNT_ID,
    credentials: {
      tokens: [DEFAULT_TOKEN],
      keys: [{ email: DEFAULT_EMAIL, key: DEFAULT_KEY }],
    },
    rate_limit: { ...DEFAULT_RATE_LIMIT },
    account_rulesets: seedAccountRulesets(seedTime),
    zones: SEED_ZONES.map((z) => seedZone(z.name, z.plan, z.hostnames, now)),
    next_job_id: 1,
  };
}

/** An empty zone as `POST /__emulator/zones` makes it: nothing configured, no hostnames, no inventory. */
export function createEmptyZone(
  name: string,
  plan: ZonePlanName,
  opts: { wafMode?: ZoneState["waf_migration"]["mode"]; now?: string } = {},
): ZoneState {
  return {
    id: zoneIdFor(name),
    name,
    plan,
    page_shield: {
      enabled: false,
      updated_at: opts.now ?? SEED_TIME,
      use_cloudflare_reporting_endpoint: true,
      use_connection_url_path: false,
    },
    policies: [],
    scripts: [],
    connections: [],
    cookies: [],
    rulesets: [],
    logpush_jobs: [],
    custom_hostnames: [],
    waf_migration: { mode: opts.wafMode ?? "new", compatible: true, old_sensitivity: "default", old_action: "block" },
  };
}

function seedZone(name: string, plan: ZonePlanName, hostnames: number, now: number): ZoneState {
  const zone = createEmptyZone(name, plan, { now: new Date(now).toISOString() });
  zone.custom_hostnames = CUSTOMERS.slice(0, hostnames).map((c, i) => seedHostname(name, c, i, now));
  const inventory = generateInventory({
    now,
    zoneId: zone.id,
    zoneName: name,
    scripts: 20,
    connections: 10,
    cookies: 8,
    maliciousRatio: 0,
    seed: 1,
  });
  shapeSeedInventory(inventory, name);
  zone.scripts = inventory.scripts;
  zone.connections = inventory.connections;
  zone.cookies = inventory.cookies;
  return zone;
}

/**
 * Makes the small seed inventory say exactly what the docs promise: 4 malicious scripts, each by one of
 * the scores of Cloudflare's verdict (malware_score 4 with a domain report, magecart_score 3 with a URL
 * report, cryptomining_score 2, js_integrity_score 6), one scored 30 that is not malicious (it was
 * under the older threshold of 50), 1 infrequent script, 1 malicious connection, insecure cookies.
 */
function shapeSeedInventory(inv: ReturnType<typeof generateInventory>, zoneName: string): void {
  for (const item of [...inv.scripts, ...inv.connections]) item.status = "active";
  const bad: Array<{ index: number; url?: string; score: number; domain?: string; urlCategory?: string; low?: Record<string, number> }> = [
    { index: 3, score: 12, url: "https://jquery-cdn-update.com/lib/jquery-3.7.1.min.js", domain: "Malware", low: { malware_score: 4 } },
    { index: 11, score: 31, url: "https://cdn-staticfiles.top/js/pay-widget.js", urlCategory: "Magecart", low: { magecart_score: 3 } },
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

function seedHostname(zoneName: string, c: (typeof CUSTOMERS)[number], index: number, now: number): Record<string, unknown> & { id: string } {
  const tld = zoneName.split(".").pop() ?? "com";
  const hostname = `${c.sub}.${c.customer}-${tld}.example`;
  // Created 30 to 58 days ago: their certificates (a year long) are current.
  const created = new Date(now - (30 + index * 7) * 86_400_000).toISOString();
  return {
    // UUIDs as the real ids (cft_custom_hostnames_v5), derived from the name to stay deterministic.
    id: uuidFrom(`custom-hostname:${hostname}`),
    hostname,
    ssl: seedSsl(hostname, c.method, c.ca, c.uploaded === true, created),
    status: "active",
    created_at: created,
    ownership_verification: {
      type: "txt",
      name: `_cf-custom-hostname.${hostname}`,
      value: uuidFrom(`ownership:${hostname}`),
    },
    ownership_verification_http: {
      http_url: `http://${hostname}/.well-known/cf-custom-hostname-challenge/${uuidFrom(`challenge:${hostname}`)}`,
      http_body: uuidFrom(`ownership:${hostname}`),
    },
  };
}
