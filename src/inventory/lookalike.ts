// Whether a URL Page Shield saw is loaded from a host that looks like one the zone trusts: the one
// verdict `audit`, `inventory` and `csp suggest` share. Pure, no network, no public suffix list.
// Spec: docs/pci-script-inventory.md#look-alike-hosts (the signals and what is not a look-alike).
import { distance } from "fastest-levenshtein";
import { domainToUnicode } from "node:url";
import { invisibleCharacters, urlParts, withoutInvisible } from "../sections/index.js";
import type { Finding, LookalikeDetail } from "./classify.js";
import { isAscii, registrableDomain, scriptsOf, skeleton, toAscii, WELL_KNOWN_HOSTS } from "./host-names.js";

export type LookalikeSignal = LookalikeDetail["signals"][number];

export type ReferenceKind = NonNullable<LookalikeDetail["looks_like_kind"]>;

export interface HostReference {
  host: string;
  kind: ReferenceKind;
  registrable: string;
  labels: readonly string[];
  hyphenated: string;
}

function hostReference(host: string, kind: ReferenceKind): HostReference {
  const registrable = registrableDomain(host);
  const labels = registrable.split(".");
  return { host, kind, registrable, labels, hyphenated: labels.join("-") };
}

export interface Lookalike {
  host: string;
  looks_like?: string;
  looks_like_kind?: ReferenceKind;
  signals: LookalikeSignal[];
  reasons: string[];
}

export function referenceHost(text: string): string | undefined {
  const host = urlParts(text)?.host ?? text.replace(/^[*.]+/, "").split(/[/?#*]/)[0]!;
  const ascii = toAscii(host.toLowerCase()).replace(/\.$/, "");
  return ascii !== "" && /^[a-z0-9.-]+$/.test(ascii) && ascii.includes(".") ? ascii : undefined;
}

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

/** lookalikeOf memoized by URL authority (hosts repeat across thousands of scripts); one per zone audit. */
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
