// Whether a script or connection URL Page Shield saw is loaded from a host that LOOKS LIKE a host the
// zone trusts: an authorized one (the script inventory), a page's own host, or a well-known payment
// provider or CDN (WELL_KNOWN_HOSTS, kept small on purpose). A skimmer picks such a host so that a
// person reading a report takes it for the real one. The one verdict `audit`, `inventory` and
// `csp suggest` share. Pure, deterministic, no network, no public suffix list.
//
// Signals (each says why in a reason):
// - userinfo: `https://js.stripe.com@evil.example/` is loaded from evil.example (always a finding);
// - invisible: zero-width, bidirectional, tag characters, soft hyphen… in the authority (always a finding);
// - idn / mixed-script: a punycode (xn--) label or non-ASCII letters, and letters of several scripts
//   in one label (`strіpe` with a Cyrillic і);
// - embedded: the host carries a reference's registrable domain in a longer name
//   (`js.stripe.com.evil.example`, `stripe-com.evil.example`);
// - homoglyph / edit-distance: once confusable letters are folded (і→i, ο→o, é→e…), the host or its
//   registrable domain equals a reference, or is 1–2 edits away (`strlpe.com`).
// A host equal to a reference, or under a reference's registrable domain (`m.stripe.com` next to
// `js.stripe.com`), is not a look-alike (user info and invisible characters still are).
import { distance } from "fastest-levenshtein";
import { domainToASCII, domainToUnicode } from "node:url";
import { invisibleCharacters, urlParts, withoutInvisible } from "../sections/index.js";
import type { Finding, LookalikeDetail } from "./classify.js";

/**
 * Hosts a skimmer imitates on payment pages: payment providers and the CDNs and tag managers payment
 * pages load. Documented in docs/pci-script-inventory.md#look-alike-hosts; keep both in step.
 */
export const WELL_KNOWN_HOSTS: readonly string[] = [
  "js.stripe.com",
  "checkout.stripe.com",
  "m.stripe.network",
  "www.paypal.com",
  "www.paypalobjects.com",
  "js.braintreegateway.com",
  "checkoutshopper-live.adyen.com",
  "pay.google.com",
  "applepay.cdn-apple.com",
  "web.squarecdn.com",
  "js.authorize.net",
  "x.klarnacdn.net",
  "cdn.checkout.com",
  "cdnjs.cloudflare.com",
  "ajax.googleapis.com",
  "www.gstatic.com",
  "www.googletagmanager.com",
  "www.google-analytics.com",
  "code.jquery.com",
  "cdn.jsdelivr.net",
  "unpkg.com",
  "connect.facebook.net",
];

/**
 * Suffixes under which anyone may get a name (shared hosting): the registrable domain is one label
 * more, so that `attacker.github.io` is not "under" `shop.github.io`. Two-letter country codes with
 * these second levels (`co.uk`, `com.au`…) are suffixes too.
 */
const SHARED_SUFFIXES = new Set([
  "github.io",
  "gitlab.io",
  "pages.dev",
  "workers.dev",
  "r2.dev",
  "netlify.app",
  "vercel.app",
  "web.app",
  "firebaseapp.com",
  "appspot.com",
  "herokuapp.com",
  "azurewebsites.net",
  "azureedge.net",
  "cloudfront.net",
  "s3.amazonaws.com",
  "amazonaws.com",
  "blob.core.windows.net",
  "trycloudflare.com",
  "ngrok.io",
  "ngrok-free.app",
  "onrender.com",
  "fly.dev",
  "glitch.me",
  "b-cdn.net",
]);
const COUNTRY_SECOND_LEVELS = new Set(["co", "com", "net", "org", "gov", "edu", "ac", "or", "ne", "go", "ltd"]);

export type LookalikeSignal = LookalikeDetail["signals"][number];

export type ReferenceKind = NonNullable<LookalikeDetail["looks_like_kind"]>;

export interface HostReference {
  /** Lower-case ASCII (punycode) host. */
  host: string;
  kind: ReferenceKind;
  /** Its registrable domain (registrableDomain), its labels and their hyphenated form, computed once. */
  registrable: string;
  labels: readonly string[];
  hyphenated: string;
}

/** A reference of `host` (lower-case ASCII). */
function hostReference(host: string, kind: ReferenceKind): HostReference {
  const registrable = registrableDomain(host);
  const labels = registrable.split(".");
  return { host, kind, registrable, labels, hyphenated: labels.join("-") };
}

export interface Lookalike {
  /** The host the URL is loaded from, as written (printable by the renderer). */
  host: string;
  /** The trusted host it imitates, when one was found. */
  looks_like?: string;
  looks_like_kind?: ReferenceKind;
  signals: LookalikeSignal[];
  reasons: string[];
}

/** The registrable domain of a lower-case ASCII host: the last two labels, or three under a known suffix. */
export function registrableDomain(host: string): string {
  const labels = host.replace(/\.$/, "").split(".");
  if (labels.length <= 2) return labels.join(".");
  const last2 = labels.slice(-2).join(".");
  const last3 = labels.slice(-3).join(".");
  const suffix3 = labels.length >= 4 && SHARED_SUFFIXES.has(last3);
  const suffix2 =
    SHARED_SUFFIXES.has(last2) || (labels.at(-1)!.length === 2 && COUNTRY_SECOND_LEVELS.has(labels.at(-2)!));
  if (suffix3) return labels.slice(-4).join(".");
  return suffix2 ? last3 : last2;
}

/** Whether a text is printable ASCII only (the common case, which needs no IDN processing). */
function isAscii(text: string): boolean {
  return /^[\u0020-\u007e]*$/.test(text);
}

/** The punycode form of a lower-case host (`""` when it is not one), without IDN processing for ASCII. */
function toAscii(host: string): string {
  return isAscii(host) ? host : domainToASCII(host);
}

/** A reference host from a URL or a bare host (`https://js.stripe.com/v3/*`, `shop.example/checkout*`). */
export function referenceHost(text: string): string | undefined {
  const host = urlParts(text)?.host ?? text.replace(/^[*.]+/, "").split(/[/?#*]/)[0]!;
  const ascii = toAscii(host.toLowerCase()).replace(/\.$/, "");
  return ascii !== "" && /^[a-z0-9.-]+$/.test(ascii) && ascii.includes(".") ? ascii : undefined;
}

/** The references of a zone: its authorized script urls, its page patterns' hosts, the well-known hosts. */
export function hostReferences(
  opts: { authorized?: readonly string[]; pages?: readonly string[]; wellKnown?: readonly string[] } = {},
): HostReference[] {
  const out = new Map<string, HostReference>();
  const add = (texts: readonly string[], kind: ReferenceKind) => {
    for (const t of texts) {
      const host = referenceHost(t);
      if (host && !out.has(host)) out.set(host, hostReference(host, kind));
    }
  };
  add(opts.authorized ?? [], "authorized");
  add(opts.pages ?? [], "page");
  add(opts.wellKnown ?? WELL_KNOWN_HOSTS, "well-known");
  return [...out.values()];
}

/** Letters that read as Latin ones (Cyrillic, Greek and Latin look-alikes), folded to what they imitate. */
const CONFUSABLE: Readonly<Record<string, string>> = {
  а: "a",
  в: "b",
  е: "e",
  ё: "e",
  і: "i",
  ї: "i",
  ј: "j",
  к: "k",
  м: "m",
  н: "h",
  о: "o",
  р: "p",
  с: "c",
  т: "t",
  у: "y",
  х: "x",
  ѕ: "s",
  һ: "h",
  ԁ: "d",
  ԛ: "q",
  ԝ: "w",
  ӏ: "l",
  ɑ: "a",
  α: "a",
  β: "b",
  ε: "e",
  ι: "i",
  κ: "k",
  ν: "v",
  ο: "o",
  ρ: "p",
  τ: "t",
  υ: "u",
  χ: "x",
  γ: "y",
  ı: "i",
  ȷ: "j",
  ɡ: "g",
  ǀ: "l",
  ℓ: "l",
};

/** Lower-case ASCII a reader would take the host for: compatibility forms, marks dropped, confusables folded. */
export function skeleton(host: string): string {
  if (isAscii(host)) return host.toLowerCase();
  let out = "";
  for (const ch of host.normalize("NFKC").toLowerCase().normalize("NFD")) {
    if (/\p{M}/u.test(ch)) continue;
    out += CONFUSABLE[ch] ?? ch;
  }
  return out;
}

const SCRIPTS = [
  "Latin",
  "Cyrillic",
  "Greek",
  "Armenian",
  "Georgian",
  "Cherokee",
  "Hebrew",
  "Arabic",
  "Devanagari",
  "Thai",
  "Hangul",
] as const;
const SCRIPT_TESTS = SCRIPTS.map((name) => ({ name, re: new RegExp(`\\p{Script=${name}}`, "u") }));
const JAPANESE_OR_CHINESE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;

/** The writing systems of a label's letters (Han, Hiragana and Katakana count as one). */
function scriptsOf(label: string): string[] {
  const found = new Set<string>();
  for (const ch of label) {
    if (!/\p{L}/u.test(ch)) continue;
    if (JAPANESE_OR_CHINESE.test(ch)) {
      found.add("Han/Kana");
      continue;
    }
    found.add(SCRIPT_TESTS.find((s) => s.re.test(ch))?.name ?? "other");
  }
  return [...found];
}

/** The most edits apart two names may be to look alike: 2, or 1 for a name shorter than 8. */
function maxEdits(name: string): number {
  return name.length >= 8 ? 2 : name.length >= 5 ? 1 : 0;
}

interface Resemblance {
  ref: HostReference;
  signal: "embedded" | "homoglyph" | "edit-distance";
  reason: string;
}

/** The reference `folded` (an ASCII skeleton) imitates, if any, most telling first. */
function resemblance(
  folded: string,
  shown: string,
  refs: readonly HostReference[],
  idn: boolean,
): Resemblance | undefined {
  const registrable = registrableDomain(folded);
  const labels = folded.split(".");
  let best: Resemblance | undefined;
  let bestScore = Number.POSITIVE_INFINITY;
  for (const ref of refs) {
    const refRegistrable = ref.registrable;
    if (idn && (folded === ref.host || registrable === refRegistrable)) {
      // Nothing is more telling: folded, it is the reference (or under its domain).
      return { ref, signal: "homoglyph", reason: `${shown} reads as ${folded}, like ${ref.host}` };
    }
    if (registrable === refRegistrable) continue;
    const refLabels = ref.labels;
    const embedded =
      labels.some((_, i) => refLabels.every((l, k) => labels[i + k] === l)) ||
      labels.some((l) => l.includes(ref.hyphenated));
    // The same name under a country code (paypal.com.au next to paypal.com) is the brand's own.
    const countryVariant =
      registrable.startsWith(`${refRegistrable}.`) && /^[a-z]{2}$/.test(registrable.slice(refRegistrable.length + 1));
    if (embedded && !countryVariant) {
      if (bestScore > 0) {
        bestScore = 0;
        best = {
          ref,
          signal: "embedded",
          reason: `${shown} carries ${refRegistrable} in a longer name, but is under ${registrable}`,
        };
      }
      continue;
    }
    for (const [a, b] of [
      [folded, ref.host],
      [registrable, refRegistrable],
    ] as const) {
      const limit = maxEdits(b);
      if (limit === 0 || Math.abs(a.length - b.length) > limit) continue;
      const d = distance(a, b);
      if (d > 0 && d <= limit && d < bestScore) {
        bestScore = d;
        best = {
          ref,
          signal: "edit-distance",
          reason: `${a} is ${d} character${d === 1 ? "" : "s"} away from ${b}`,
        };
      }
    }
  }
  return best;
}

/**
 * The look-alike verdict on the host `url` is loaded from, or undefined when it is trusted as itself
 * (or has no host: data:, blob:, relative). `refs` from hostReferences().
 */
export function lookalikeOf(url: string, refs: readonly HostReference[]): Lookalike | undefined {
  const parts = urlParts(url);
  if (!parts || parts.host === "" || parts.host.startsWith("[")) return undefined;
  const signals: LookalikeSignal[] = [];
  const reasons: string[] = [];
  const visibleHost = withoutInvisible(parts.host);
  if (parts.userinfo !== undefined) {
    signals.push("userinfo");
    reasons.push(
      `the URL carries user info ('${parts.userinfo}@') before its host: it is loaded from ${visibleHost}, ` +
        "not from what the @ follows",
    );
  }
  const invisible = invisibleCharacters(parts.authority);
  if (invisible.length > 0) {
    signals.push("invisible");
    reasons.push(`invisible character${invisible.length === 1 ? "" : "s"} ${invisible.join(", ")} in the host`);
  }
  const lower = visibleHost.toLowerCase().replace(/\.$/, "");
  const ascii = toAscii(lower);
  const key = ascii !== "" ? ascii : lower;
  if (/^[\d.]+$/.test(key)) return signals.length > 0 ? { host: parts.host, signals, reasons } : undefined;
  const keyRegistrable = registrableDomain(key);
  const trusted = refs.some((r) => r.host === key || r.registrable === keyRegistrable);
  const unicode = ascii !== "" && ascii.includes("xn--") ? domainToUnicode(ascii) : lower;
  const punycode = key.split(".").filter((l) => l.startsWith("xn--"));
  const idn = punycode.length > 0 || /[^\u0000-\u007f]/.test(lower);
  if (!trusted) {
    if (idn) {
      signals.push("idn");
      reasons.push(
        punycode.length > 0
          ? `punycode label${punycode.length === 1 ? "" : "s"} ${punycode.join(", ")} (shown as ${unicode})`
          : `non-ASCII letters in the host (punycode ${key})`,
      );
    }
    const mixed = (isAscii(unicode) ? [] : unicode.split("."))
      .map((label) => ({ label, scripts: scriptsOf(label) }))
      .find((l) => l.scripts.length > 1);
    if (mixed) {
      signals.push("mixed-script");
      reasons.push(`the label '${mixed.label}' mixes ${mixed.scripts.join(" and ")} letters`);
    }
    const like = resemblance(skeleton(unicode), unicode, refs, idn);
    if (like) {
      signals.push(like.signal);
      reasons.push(like.reason);
      return {
        host: parts.host,
        looks_like: like.ref.host,
        looks_like_kind: like.ref.kind,
        signals,
        reasons,
      };
    }
  }
  if (signals.length === 0) return undefined;
  // User info or invisible characters: what the URL would read as, when that is a reference.
  const shownAs = parts.userinfo !== undefined ? referenceHost(withoutInvisible(parts.userinfo)) : key;
  const ref = refs.find((r) => r.host === shownAs || r.host === key);
  return {
    host: parts.host,
    ...(ref ? { looks_like: ref.host, looks_like_kind: ref.kind } : {}),
    signals,
    reasons,
  };
}

/**
 * lookalikeOf with a bounded memo by URL authority (hosts repeat across thousands of scripts). One per
 * audit of a zone: the references are fixed for its life.
 */
export class LookalikeJudge {
  private readonly memo = new Map<string, Lookalike | undefined>();
  private static readonly MAX = 10_000;

  constructor(readonly refs: readonly HostReference[]) {}

  judge(url: string, extra?: string): Lookalike | undefined {
    const authority = urlParts(url)?.authority;
    if (authority === undefined) return undefined;
    const key = `${authority}\n${extra ?? ""}`;
    if (this.memo.has(key)) return this.memo.get(key);
    const extraRef = extra ? referenceHost(extra) : undefined;
    const refs =
      extraRef && !this.refs.some((r) => r.host === extraRef)
        ? [...this.refs, hostReference(extraRef, "page")]
        : this.refs;
    const verdict = lookalikeOf(url, refs);
    if (this.memo.size >= LookalikeJudge.MAX) this.memo.clear();
    this.memo.set(key, verdict);
    return verdict;
  }
}

const KIND_WORDS: Record<ReferenceKind, string> = {
  authorized: "an authorized host",
  page: "the page's own host",
  "well-known": "a well-known payment or CDN host",
};

/**
 * A script's or connection's look-alike host finding for `audit`, or undefined. Its own kind (the
 * `lookalike` field), high: a reader takes the host for a trusted one (PCI DSS 6.4.3).
 */
export function lookalikeFinding(
  kind: "script" | "connection",
  raw: Record<string, unknown>,
  judge: LookalikeJudge,
): Finding | undefined {
  const url = typeof raw.url === "string" ? raw.url : "";
  const pageHost = typeof raw.host === "string" ? raw.host : undefined;
  const look = judge.judge(url, pageHost);
  if (!look) return undefined;
  const str = (k: string) => (typeof raw[k] === "string" ? { [k]: raw[k] as string } : {});
  return {
    kind,
    severity: "high",
    id: String(raw.id ?? ""),
    subject: url,
    host: pageHost ?? "",
    ...str("status"),
    ...str("first_page_url"),
    ...str("last_seen_at"),
    malicious_domain_categories: [],
    malicious_url_categories: [],
    reasons: [
      look.looks_like
        ? `look-alike host: looks like ${KIND_WORDS[look.looks_like_kind ?? "well-known"]}, ${look.looks_like}`
        : "look-alike host: the URL disguises its host",
      ...look.reasons,
    ],
    lookalike: {
      host: look.host,
      ...(look.looks_like ? { looks_like: look.looks_like } : {}),
      ...(look.looks_like_kind ? { looks_like_kind: look.looks_like_kind } : {}),
      signals: look.signals,
    },
    rank: 50 + 100 * look.signals.length,
  };
}
