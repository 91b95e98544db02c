// Turns one Page Shield inventory item (script, connection or cookie) into at most one finding with a
// severity and the reasons for it. Pure, and the one verdict `audit`, `csp suggest` and `inventory`
// share. A script is malicious, as Cloudflare's client-side security decides it today, when:
// - its js_integrity_score is below the threshold (Cloudflare: "currently set to 10", the older 50 was
//   removed from the docs), or
// - its magecart_score, malware_score or cryptomining_score (changelog 2024-09-18, 1–99, low = likely
//   malicious) is below theirs: Cloudflare documents no number for these, so zoneform uses 10 like the
//   integrity score, as a setting, or
// - its domain or URL is reported malicious.
// dataflow_score and obfuscation_score are deprecated (in favour of js_integrity_score) and ignored.
// A null or absent score means "not scored yet", which is not a verdict either way. Every finding says
// which signal made it (`verdict_by`, and the reasons).

export type InventoryKind = "script" | "connection" | "cookie";
export type Severity = "high" | "medium" | "low";

/** Below this js_integrity_score a script is malicious by default (the malicious-script-detection page's 10). */
export const MALICIOUS_SCORE_THRESHOLD = 10;
/**
 * Below this magecart, malware or cryptomining score a script is malicious by default (no documented number: 10, as
 * above).
 */
export const THREAT_SCORE_THRESHOLD = 10;

/** The scores of Cloudflare's verdict, in the order reasons name them. */
const THREAT_SCORES = ["magecart_score", "malware_score", "cryptomining_score"] as const;
type ThreatScore = (typeof THREAT_SCORES)[number];
// dataflow_score and obfuscation_score are deprecated by Cloudflare: read nowhere in the verdict.

/** The signals a finding can rest on. */
type VerdictSignal = "js_integrity_score" | ThreatScore | "domain_reported_malicious" | "url_reported_malicious";

/** The score thresholds of the verdict: strictly below is malicious. */
export interface ScoreThresholds {
  /** js_integrity_score (`--malicious-below`). */
  js_integrity: number;
  /** magecart_score, malware_score, cryptomining_score (`--threat-below`). */
  threat: number;
}

const DEFAULT_THRESHOLDS: Readonly<ScoreThresholds> = {
  js_integrity: MALICIOUS_SCORE_THRESHOLD,
  threat: THREAT_SCORE_THRESHOLD,
};

/** A number is the js_integrity threshold alone (the threat threshold stays the default). */
function thresholdsOf(t: number | Partial<ScoreThresholds> | undefined): ScoreThresholds {
  if (typeof t === "number") return { ...DEFAULT_THRESHOLDS, js_integrity: t };
  return { ...DEFAULT_THRESHOLDS, ...(t ?? {}) };
}

const SEVERITY_RANK: Record<Severity, number> = { high: 3, medium: 2, low: 1 };

export interface Finding {
  kind: InventoryKind;
  severity: Severity;
  id: string;
  /** The script or connection URL, or the cookie name. */
  subject: string;
  host: string;
  status?: string;
  /** Scripts only; null when Page Shield has not scored the script. */
  js_integrity_score?: number | null;
  /** Scripts only, each null when not scored. */
  magecart_score?: number | null;
  malware_score?: number | null;
  cryptomining_score?: number | null;
  /** Scripts and connections: the signals that made the verdict, in the order of `reasons`. */
  verdict_by?: VerdictSignal[];
  /** Kept apart as the API keeps them: domain categories belong to domain_reported_malicious. */
  malicious_domain_categories: string[];
  /** …and URL categories to url_reported_malicious. */
  malicious_url_categories: string[];
  reasons: string[];
  first_page_url?: string;
  last_seen_at?: string;
  /**
   * Present on a look-alike host finding (its own kind, src/inventory/lookalike.ts, not a malicious
   * verdict): the host the URL is loaded from, what it imitates and the signals.
   */
  lookalike?: LookalikeDetail;
  /** Orders findings of one kind worst first: higher is worse. */
  rank: number;
}

/** What a look-alike host finding adds (the reasons are the finding's). */
export interface LookalikeDetail {
  host: string;
  looks_like?: string;
  looks_like_kind?: "authorized" | "page" | "well-known";
  signals: Array<"userinfo" | "invisible" | "idn" | "mixed-script" | "embedded" | "homoglyph" | "edit-distance">;
}

type Raw = Record<string, unknown>;

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

/** Integer scores 1–99, or null when absent or not a number (unknown ≠ malicious). */
export function scoreOf(v: unknown): number | null {
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

function categories(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((c): c is string => typeof c === "string") : [];
}

function base(kind: InventoryKind, raw: Raw, subject: string) {
  return {
    kind,
    id: String(raw.id ?? ""),
    subject,
    host: str(raw.host) ?? "",
    ...(str(raw.status) !== undefined ? { status: str(raw.status) } : {}),
    ...(str(raw.first_page_url) !== undefined ? { first_page_url: str(raw.first_page_url) } : {}),
    ...(str(raw.last_seen_at) !== undefined ? { last_seen_at: str(raw.last_seen_at) } : {}),
  };
}

/** Reasons a script or connection is reported malicious by domain or URL, categories kept apart. */
function reportedReasons(raw: Raw): { reasons: string[]; by: VerdictSignal[]; domain: string[]; url: string[] } {
  const domain = categories(raw.malicious_domain_categories);
  const url = categories(raw.malicious_url_categories);
  const reasons: string[] = [];
  const by: VerdictSignal[] = [];
  if (raw.domain_reported_malicious === true) {
    reasons.push(`domain reported malicious${domain.length ? ` (${domain.join(", ")})` : ""}`);
    by.push("domain_reported_malicious");
  }
  if (raw.url_reported_malicious === true) {
    reasons.push(`URL reported malicious${url.length ? ` (${url.join(", ")})` : ""}`);
    by.push("url_reported_malicious");
  }
  return { reasons, by, domain, url };
}

/** The scores below their thresholds, as reasons and signals (js_integrity first, then the threat scores). */
function scoreReasons(raw: Raw, t: ScoreThresholds): { reasons: string[]; by: VerdictSignal[]; lowest: number | null } {
  const reasons: string[] = [];
  const by: VerdictSignal[] = [];
  let lowest: number | null = null;
  const check = (name: VerdictSignal, threshold: number) => {
    const v = scoreOf(raw[name]);
    if (v === null) return;
    lowest = lowest === null ? v : Math.min(lowest, v);
    if (v < threshold) {
      reasons.push(`${name} ${v} < ${threshold}`);
      by.push(name);
    }
  };
  check("js_integrity_score", t.js_integrity);
  for (const name of THREAT_SCORES) check(name, t.threat);
  return { reasons, by, lowest };
}

/**
 * A script's finding, or undefined when nothing makes it malicious. `thresholds`: a number is the
 * js_integrity_score threshold alone (as `--malicious-below`).
 */
export function classifyScript(
  raw: Raw,
  thresholds: number | Partial<ScoreThresholds> = DEFAULT_THRESHOLDS,
): Finding | undefined {
  const t = thresholdsOf(thresholds);
  const scored = scoreReasons(raw, t);
  const reported = reportedReasons(raw);
  const reasons = [...scored.reasons, ...reported.reasons];
  if (reasons.length === 0) return undefined;
  // Lower scores are worse; each signal adds weight so that a script with several leads.
  const rank = (scored.lowest === null ? 50 : 100 - scored.lowest) + 100 * reasons.length;
  return {
    ...base("script", raw, str(raw.url) ?? ""),
    severity: "high",
    js_integrity_score: scoreOf(raw.js_integrity_score),
    magecart_score: scoreOf(raw.magecart_score),
    malware_score: scoreOf(raw.malware_score),
    cryptomining_score: scoreOf(raw.cryptomining_score),
    verdict_by: [...scored.by, ...reported.by],
    malicious_domain_categories: reported.domain,
    malicious_url_categories: reported.url,
    reasons,
    rank,
  };
}

export function classifyConnection(raw: Raw): Finding | undefined {
  const reported = reportedReasons(raw);
  if (reported.reasons.length === 0) return undefined;
  return {
    ...base("connection", raw, str(raw.url) ?? ""),
    severity: "high",
    malicious_domain_categories: reported.domain,
    verdict_by: reported.by,
    malicious_url_categories: reported.url,
    reasons: reported.reasons,
    rank: reported.reasons.length,
  };
}

/**
 * A cookie without Secure can travel in clear text (medium); without HttpOnly it is readable by any
 * script on the page, and SameSite=None sends it on cross-site requests (low).
 */
export function classifyCookie(raw: Raw): Finding | undefined {
  const reasons: string[] = [];
  const secure = raw.secure_attribute === true;
  if (!secure) reasons.push("no Secure");
  if (raw.http_only_attribute !== true) reasons.push("no HttpOnly");
  if (str(raw.same_site_attribute)?.toLowerCase() === "none") reasons.push("SameSite=None");
  if (reasons.length === 0) return undefined;
  return {
    ...base("cookie", raw, str(raw.name) ?? ""),
    severity: secure ? "low" : "medium",
    malicious_domain_categories: [],
    malicious_url_categories: [],
    reasons,
    rank: reasons.length,
  };
}

export function classify(
  kind: InventoryKind,
  raw: Raw,
  thresholds: number | Partial<ScoreThresholds> = DEFAULT_THRESHOLDS,
): Finding | undefined {
  if (kind === "script") return classifyScript(raw, thresholds);
  if (kind === "connection") return classifyConnection(raw);
  return classifyCookie(raw);
}

/** Worst first: severity, then rank, then subject and id so that the order is stable. */
export function compareFindings(a: Finding, b: Finding): number {
  return (
    SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity] ||
    b.rank - a.rank ||
    (a.subject < b.subject ? -1 : a.subject > b.subject ? 1 : 0) ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}
