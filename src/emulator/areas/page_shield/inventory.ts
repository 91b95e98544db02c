// Deterministic Page Shield inventory: the scripts, connections and cookies a zone's pages load.
import { createRng, hexFrom, seedFrom } from "../../ids.js";

type Item = Record<string, unknown> & { id: string };

export interface InventoryOptions {
  zoneId: string;
  zoneName: string;
  scripts: number;
  connections: number;
  cookies: number;
  /**
   * Share (0–1) of scripts malicious by Cloudflare's verdict (a js_integrity_score drawn from 1–49, so below 10
   * for some only, and one of magecart, malware or cryptomining score below 10), and of connections reported
   * malicious.
   */
  maliciousRatio: number;
  seed?: number;
  /**
   * Adds the scripts of payment-like pages (`<zone>/checkout`, `/checkout/payment`, `/pay/card`), with several
   * versions each (hash changes, later fetched_at).
   */
  paymentPages?: boolean;
  /**
   * The instant (ms since the epoch) every timestamp is counted back from: items were first seen up to 180 days
   * before it and last seen between then and `now` (the emulator passes its clock).
   */
  now: number;
}

export interface Inventory {
  scripts: Item[];
  connections: Item[];
  cookies: Item[];
}

const DAY_MS = 86_400_000;
const DAY_SECONDS = 86_400;

const LIBRARIES = [
  "jquery",
  "lodash.js",
  "moment.js",
  "react",
  "vue",
  "axios",
  "chart.js",
  "d3",
  "swiper",
  "popper.js",
];
const THIRD_PARTY = [
  "https://www.googletagmanager.com/gtag/js?id=G-",
  "https://js.stripe.com/v3/",
  "https://connect.facebook.net/en_US/fbevents.js?v=",
  "https://static.hotjar.com/c/hotjar-",
  "https://cdn.segment.com/analytics.js/v1/",
];
const BAD_DOMAINS = ["jquery-cdn-update.com", "analytics-sync.net", "cdn-staticfiles.top", "gstatic-cdn.org"];
const DOMAIN_CATEGORIES = [["Malware"], ["Phishing"], ["Malware", "Command and Control"]];
const URL_CATEGORIES = [["Malware"], ["Magecart"], ["Cryptomining", "Malware"]];
const PAGES = ["", "checkout", "cart", "login", "account", "products", "blog", "search"];
const COOKIE_NAMES = [
  "__Session",
  "_ga",
  "_gid",
  "cart_id",
  "csrftoken",
  "__cf_bm",
  "locale",
  "theme",
  "_fbp",
  "ab_test",
];
const SAME_SITE = ["lax", "strict", "none"] as const;

export function generateInventory(opts: InventoryOptions): Inventory {
  const base = `${opts.zoneId}|${opts.seed ?? 0}`;
  // Whole seconds, as the API dates what it saw.
  const now = Math.floor(opts.now / 1000) * 1000;
  const scripts = generateScripts(opts, now, createRng(seedFrom(`${base}|scripts`)));
  if (opts.paymentPages)
    scripts.push(...generatePaymentScripts(opts.zoneName, now, createRng(seedFrom(`${base}|payment`))));
  return {
    scripts,
    connections: generateConnections(opts, now, createRng(seedFrom(`${base}|connections`))),
    cookies: generateCookies(opts, now, createRng(seedFrom(`${base}|cookies`))),
  };
}

/** The fields scripts and connections share (Page Shield reports both the same way). */
function observedItem(
  rng: () => number,
  o: { url: string; host: string; seen: ReturnType<typeof seenTimes>; pages: string[]; cdnCgi: boolean },
): Item {
  return {
    id: hexFrom(rng, 32),
    url: o.url,
    added_at: o.seen.added_at,
    first_seen_at: o.seen.first_seen_at,
    last_seen_at: o.seen.last_seen_at,
    host: o.host,
    domain_reported_malicious: false,
    url_reported_malicious: false,
    first_page_url: o.pages[0],
    status: pickStatus(rng),
    url_contains_cdn_cgi_path: o.cdnCgi,
  };
}

function generateScripts(opts: InventoryOptions, now: number, rng: () => number): Item[] {
  const out: Item[] = new Array(opts.scripts);
  for (let i = 0; i < opts.scripts; i++) {
    const malicious = rng() < opts.maliciousRatio;
    const seen = seenTimes(now, rng);
    const host = pickHost(opts.zoneName, rng);
    const cdnCgi = !malicious && rng() < 0.03;
    const url = cdnCgi
      ? `https://${host}/cdn-cgi/challenge-platform/scripts/jsd/main-${i}.js`
      : malicious
        ? `https://${pick(BAD_DOMAINS, rng)}/lib/${hexFrom(rng, 8)}/min-${i}.js`
        : benignScriptUrl(opts.zoneName, i, rng);
    // Scores spread over 1–99; malicious ones land below the threshold.
    const integrity = malicious ? 1 + Math.floor(rng() * 49) : 50 + Math.floor(rng() * 50);
    const hash = hexFrom(rng, 64);
    const pages = pageUrls(host, rng);
    const script: Item = {
      ...observedItem(rng, { url, host, seen, pages, cdnCgi }),
      hash,
      js_integrity_score: integrity,
      obfuscation_score: malicious ? 1 + Math.floor(rng() * 40) : 40 + Math.floor(rng() * 60),
      dataflow_score: malicious ? 1 + Math.floor(rng() * 45) : 45 + Math.floor(rng() * 55),
      fetched_at: seen.last_seen_at,
      page_urls: pages,
      versions: [{ hash, js_integrity_score: integrity, fetched_at: seen.last_seen_at }],
    };
    if (malicious) markReported(script, rng);
    script.malicious_url_categories ??= [];
    addThreatScores(script, malicious);
    out[i] = script;
  }
  return out;
}

/** The scripts a shop's payment pages load: its own, the payment provider's, a tag manager, a library. */
const PAYMENT_SCRIPTS: ReadonlyArray<{
  url: (zone: string) => string;
  pages: string[];
  versions: number;
  status?: string;
}> = [
  { url: () => "https://js.stripe.com/v3/", pages: ["checkout", "checkout/payment", "pay/card"], versions: 3 },
  { url: (z) => `https://www.${z}/assets/checkout.js`, pages: ["checkout", "checkout/payment"], versions: 2 },
  { url: (z) => `https://${z}/pay/app.js`, pages: ["pay/card", "pay/confirm"], versions: 1 },
  { url: () => "https://www.googletagmanager.com/gtag/js?id=G-PAY0001", pages: ["checkout"], versions: 1 },
  {
    url: () => "https://cdn.jsdelivr.net/npm/card-validator@10.0.0/dist/card-validator.min.js",
    pages: ["pay/card"],
    versions: 1,
  },
];

/**
 * The payment-page scripts: each seen in the last day on its pages, first seen 20–200 days earlier, with 1–3
 * versions fetched in order (the last one's hash is the script's `hash`).
 */
function generatePaymentScripts(zoneName: string, nowMs: number, rng: () => number): Item[] {
  const now = Math.floor(nowMs / 1000) * 1000;
  return PAYMENT_SCRIPTS.map((p) => {
    const first = now - (20 + Math.floor(rng() * 180)) * DAY_MS;
    const last = now - Math.floor(rng() * 86_400) * 1000;
    const versions = Array.from({ length: p.versions }, (_, k) => ({
      hash: hexFrom(rng, 64),
      js_integrity_score: 70 + Math.floor(rng() * 29),
      // Versions fetched between first sight and now, oldest first.
      fetched_at: isoSeconds(first + Math.floor(((k + 1) / (p.versions + 1)) * (last - first))),
    }));
    const current = versions[versions.length - 1]!;
    const pages = p.pages.map((path) => `${zoneName}/${path}`);
    const url = p.url(zoneName);
    const script: Item = {
      id: hexFrom(rng, 32),
      url,
      added_at: `${isoSeconds(first).slice(0, 19)}.5Z`,
      first_seen_at: isoSeconds(first),
      last_seen_at: isoSeconds(last),
      host: zoneName,
      domain_reported_malicious: false,
      url_reported_malicious: false,
      first_page_url: pages[0],
      status: p.status ?? "active",
      url_contains_cdn_cgi_path: false,
      hash: current.hash,
      js_integrity_score: current.js_integrity_score,
      obfuscation_score: 60 + Math.floor(rng() * 39),
      dataflow_score: 60 + Math.floor(rng() * 39),
      fetched_at: current.fetched_at,
      page_urls: pages,
      versions: [...versions].reverse(),
      malicious_url_categories: [],
    };
    addThreatScores(script, false);
    return script;
  });
}

function isoSeconds(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

function generateConnections(opts: InventoryOptions, now: number, rng: () => number): Item[] {
  const out: Item[] = new Array(opts.connections);
  for (let i = 0; i < opts.connections; i++) {
    const malicious = rng() < opts.maliciousRatio;
    const seen = seenTimes(now, rng);
    const host = pickHost(opts.zoneName, rng);
    const pages = pageUrls(host, rng);
    const url = malicious
      ? `https://collect.${pick(BAD_DOMAINS, rng)}/c/${i}`
      : pick(
          [
            `https://api.${opts.zoneName}/v1/events/${i}`,
            `https://www.google-analytics.com/g/collect?v=2&i=${i}`,
            `https://o${100 + (i % 900)}.ingest.sentry.io/api/${i}/envelope/`,
            `https://api.stripe.com/v1/tokens?i=${i}`,
          ],
          rng,
        );
    const conn: Item = { ...observedItem(rng, { url, host, seen, pages, cdnCgi: false }), page_urls: pages };
    if (malicious) markReported(conn, rng);
    conn.malicious_domain_categories ??= [];
    out[i] = conn;
  }
  return out;
}

function generateCookies(opts: InventoryOptions, now: number, rng: () => number): Item[] {
  const out: Item[] = new Array(opts.cookies);
  for (let i = 0; i < opts.cookies; i++) {
    const seen = seenTimes(now, rng);
    const host = pickHost(opts.zoneName, rng);
    const pages = pageUrls(host, rng);
    const baseName = COOKIE_NAMES[i % COOKIE_NAMES.length]!;
    // About a third are insecure (no Secure or no HttpOnly), which audits should flag.
    const insecure = rng() < 0.35;
    const cookie: Item = {
      id: hexFrom(rng, 32),
      type: rng() < 0.9 ? "first_party" : "unknown",
      name: i < COOKIE_NAMES.length ? baseName : `${baseName}_${i}`,
      host,
      domain_attribute: `.${opts.zoneName}`,
      expires_attribute: new Date(Date.parse(seen.last_seen_at) + (1 + Math.floor(rng() * 365)) * DAY_MS).toISOString(),
      http_only_attribute: insecure ? false : rng() < 0.8,
      path_attribute: "/",
      same_site_attribute: insecure ? "none" : pick(SAME_SITE, rng),
      secure_attribute: insecure ? rng() < 0.3 : true,
      first_seen_at: seen.first_seen_at,
      last_seen_at: seen.last_seen_at,
      first_page_url: pages[0],
      page_urls: pages,
    };
    // Unset max_age reads back null (Page Shield API reference), though the 2024 schema types it as a plain
    // integer.
    cookie.max_age_attribute = rng() < 0.6 ? 3600 * (1 + Math.floor(rng() * 720)) : null;
    out[i] = cookie;
  }
  return out;
}

/**
 * The 2026 scores of a script (`malware_score`, `cryptomining_score`, `magecart_score`, 1–99, lower is worse
 * like js_integrity_score).
 */
export function addThreatScores(script: Item, malicious: boolean): void {
  const rng = createRng(seedFrom(`${script.id}|threat`));
  const categories = [...asStrings(script.malicious_url_categories), ...asStrings(script.malicious_domain_categories)];
  const score = (bad: boolean) => (bad ? 1 + Math.floor(rng() * 9) : 50 + Math.floor(rng() * 50));
  const magecart = categories.includes("Magecart");
  const cryptomining = categories.includes("Cryptomining");
  script.malware_score = score(categories.includes("Malware") || (malicious && !magecart && !cryptomining));
  script.cryptomining_score = score(cryptomining);
  script.magecart_score = score(magecart);
}

function asStrings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

function markReported(item: Item, rng: () => number): void {
  // The two category lists are separate properties, each tied to its own flag (never merged).
  const r = rng();
  if (r < 0.5) {
    item.domain_reported_malicious = true;
    item.malicious_domain_categories = pick(DOMAIN_CATEGORIES, rng);
  }
  if (r >= 0.3 && r < 0.8) {
    item.url_reported_malicious = true;
    item.malicious_url_categories = pick(URL_CATEGORIES, rng);
  }
}

function benignScriptUrl(zoneName: string, i: number, rng: () => number): string {
  const r = rng();
  if (r < 0.4) return `https://${zoneName}/static/js/chunk-${i}.${hexFrom(rng, 8)}.js`;
  if (r < 0.7) {
    const lib = pick(LIBRARIES, rng);
    return `https://cdnjs.cloudflare.com/ajax/libs/${lib}/${1 + (i % 9)}.${i % 17}.${i % 5}/${lib}.min.js?i=${i}`;
  }
  return `${pick(THIRD_PARTY, rng)}${i}`;
}

function pickStatus(rng: () => number): "active" | "infrequent" | "inactive" {
  const r = rng();
  return r < 0.05 ? "infrequent" : r < 0.07 ? "inactive" : "active";
}

function pickHost(zoneName: string, rng: () => number): string {
  const r = rng();
  return r < 0.6 ? zoneName : r < 0.85 ? `www.${zoneName}` : `shop.${zoneName}`;
}

function pageUrls(host: string, rng: () => number): string[] {
  const n = 1 + Math.floor(rng() * 3);
  const pages: string[] = [];
  for (let k = 0; k < n; k++) {
    const page = `${host}/${pick(PAGES, rng)}`;
    if (!pages.includes(page)) pages.push(page);
  }
  return pages;
}

function seenTimes(now: number, rng: () => number): { added_at: string; first_seen_at: string; last_seen_at: string } {
  // Whole seconds, as the real API shows first/last_seen_at; added_at a moment later.
  const first = now - Math.floor(rng() * 180 * DAY_SECONDS) * 1000;
  const last = first + Math.floor((rng() * (now - first)) / 1000) * 1000;
  const firstIso = new Date(first).toISOString();
  return {
    first_seen_at: `${firstIso.slice(0, 19)}Z`,
    added_at: `${firstIso.slice(0, 19)}.5Z`,
    last_seen_at: `${new Date(last).toISOString().slice(0, 19)}Z`,
  };
}

function pick<T>(list: readonly T[], rng: () => number): T {
  return list[Math.floor(rng() * list.length)]!;
}
