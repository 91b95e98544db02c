// Turns one Page Shield inventory item (script, connection or cookie) into at most one finding with its
// severity and reasons: the one verdict `audit`, `csp suggest` and `inventory` share. Pure.
// Spec: docs/commands/audit.md (the thresholds and why 10). A null score is "not scored yet", no verdict.

export type InventoryKind = "script" | "connection" | "cookie";
export type Severity = "high" | "medium" | "low";

export const MALICIOUS_SCORE_THRESHOLD = 10;
/** Cloudflare documents no number for these: 10, as for js_integrity_score. */
export const THREAT_SCORE_THRESHOLD = 10;

const THREAT_SCORES = ["magecart_score", "malware_score", "cryptomining_score"] as const;
type ThreatScore = (typeof THREAT_SCORES)[number];

type VerdictSignal = "js_integrity_score" | ThreatScore | "domain_reported_malicious" | "url_reported_malicious";

export interface ScoreThresholds {
  js_integrity: number;
  threat: number;
}

const DEFAULT_THRESHOLDS: Readonly<ScoreThresholds> = {
  js_integrity: MALICIOUS_SCORE_THRESHOLD,
  threat: THREAT_SCORE_THRESHOLD,
};

function thresholdsOf(t: number | Partial<ScoreThresholds> | undefined): ScoreThresholds {
  if (typeof t === "number") return { ...DEFAULT_THRESHOLDS, js_integrity: t };
  return { ...DEFAULT_THRESHOLDS, ...(t ?? {}) };
}

const SEVERITY_RANK: Record<Severity, number> = { high: 3, medium: 2, low: 1 };

export interface Finding {
  kind: InventoryKind;
  severity: Severity;
  id: string;
  subject: string;
  host: string;
  status?: string;
  js_integrity_score?: number | null;
  magecart_score?: number | null;
  malware_score?: number | null;
  cryptomining_score?: number | null;
  verdict_by?: VerdictSignal[];
  /** Kept apart as the API keeps them: domain categories belong to domain_reported_malicious. */
  malicious_domain_categories: string[];
  malicious_url_categories: string[];
  reasons: string[];
  first_page_url?: string;
  last_seen_at?: string;
  lookalike?: LookalikeDetail;
  rank: number;
}

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

export function compareFindings(a: Finding, b: Finding): number {
  return (
    SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity] ||
    b.rank - a.rank ||
    (a.subject < b.subject ? -1 : a.subject > b.subject ? 1 : 0) ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}
