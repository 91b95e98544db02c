// Turns one Page Shield inventory item (script, connection or cookie) into at most one finding with a
// severity and the reasons for it. Pure. A script is malicious when its js_integrity_score is below
// the threshold, or when its domain or URL is reported malicious. Cloudflare's pages disagree on the
// threshold (the API reference calls scores up to 10 "likely malicious", the malicious-script page
// uses 50), so it is a setting, 50 by default, and every report says which was used. A null or absent
// score means "not scored yet", which is not a verdict either way.

export type InventoryKind = "script" | "connection" | "cookie";
export type Severity = "high" | "medium" | "low";

/** Below this js_integrity_score a script is malicious by default (the malicious-script-detection page's 50). */
export const MALICIOUS_SCORE_THRESHOLD = 50;

export const SEVERITY_RANK: Record<Severity, number> = { high: 3, medium: 2, low: 1 };

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
  /** Kept apart as the API keeps them: domain categories belong to domain_reported_malicious. */
  malicious_domain_categories: string[];
  /** …and URL categories to url_reported_malicious. */
  malicious_url_categories: string[];
  reasons: string[];
  first_page_url?: string;
  last_seen_at?: string;
  /** Orders findings of one kind worst first: higher is worse. */
  rank: number;
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
function reportedReasons(raw: Raw): { reasons: string[]; domain: string[]; url: string[] } {
  const domain = categories(raw.malicious_domain_categories);
  const url = categories(raw.malicious_url_categories);
  const reasons: string[] = [];
  if (raw.domain_reported_malicious === true) {
    reasons.push(`domain reported malicious${domain.length ? ` (${domain.join(", ")})` : ""}`);
  }
  if (raw.url_reported_malicious === true) {
    reasons.push(`URL reported malicious${url.length ? ` (${url.join(", ")})` : ""}`);
  }
  return { reasons, domain, url };
}

export function classifyScript(raw: Raw, threshold = MALICIOUS_SCORE_THRESHOLD): Finding | undefined {
  const score = scoreOf(raw.js_integrity_score);
  const reported = reportedReasons(raw);
  const reasons = [...reported.reasons];
  if (score !== null && score < threshold) reasons.unshift(`js_integrity_score ${score} < ${threshold}`);
  if (reasons.length === 0) return undefined;
  // Lower scores are worse; each report adds weight so that a reported script with a low score leads.
  const rank = (score === null ? 50 : 100 - score) + 100 * reported.reasons.length;
  return {
    ...base("script", raw, str(raw.url) ?? ""),
    severity: "high",
    js_integrity_score: score,
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

export function classify(kind: InventoryKind, raw: Raw, threshold = MALICIOUS_SCORE_THRESHOLD): Finding | undefined {
  if (kind === "script") return classifyScript(raw, threshold);
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
