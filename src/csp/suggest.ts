// Builds a Content-Security-Policy suggestion from a Page Shield inventory.
// Spec: docs/commands/csp.md.
import {
  classifyConnection,
  classifyScript,
  MALICIOUS_SCORE_THRESHOLD,
  THREAT_SCORE_THRESHOLD,
  hostPartProblem,
  hostSource,
  hostReferences,
  LookalikeJudge,
  serializePolicy,
} from "../inventory/index.js";

export type CspItemKind = "script" | "connection";

export interface ExcludedHost {
  host: string;
  scripts: number;
  connections: number;
  reasons: string[];
}

export interface DroppedSource {
  kind: CspItemKind | "page host";
  host: string;
  example: string;
  reason: string;
  count: number;
}

export interface CspSuggestion {
  script_src: string[];
  connect_src: string[];
  value: string;
  excluded: ExcludedHost[];
  /** Malicious items served from a page's own host: 'self' is kept, the item itself must go. */
  self_hosted_malicious: { count: number; examples: string[] };
  /** The page hosts the items were seen on (for the policy's expression). */
  page_hosts: string[];
  /** URLs not valid as a CSP source or from a look-alike host, and page hosts not valid in an expression. */
  dropped: DroppedSource[];
  dropped_more: number;
  /** Items read, items whose URL gave no origin (data:, blob:, relative), items dropped. */
  counts: { scripts: number; connections: number; skipped: number; dropped: number };
  malicious_below: number;
  threat_below: number;
}

export interface CspOptions {
  /** This many subdomains (or more) of one parent domain become `scheme://*.parent`. 0 turns it off. */
  wildcardThreshold?: number;
  /** A script scored below this is malicious (default 50, as in `audit`). */
  maliciousBelow?: number;
  /** …or whose magecart, malware or cryptomining score is below this (default 10, as in `audit`). */
  threatBelow?: number;
}

const DEFAULT_WILDCARD_THRESHOLD = 5;
const MAX_EXAMPLES = 10;
/** Dropped rows kept (distinct kind, reason and host); the rest are counted. */
const MAX_DROPPED = 50;
const SOURCE_SCHEMES = new Set(["https:", "http:", "wss:", "ws:"]);

interface Origin {
  scheme: string;
  host: string;
  port: string;
}

/** scheme://host[:port] of a URL, lower-cased; undefined for data:, blob:, relative or broken URLs. */
export function originOf(url: string): Origin | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  if (!SOURCE_SCHEMES.has(u.protocol) || !u.hostname) return undefined;
  return { scheme: u.protocol.slice(0, -1), host: u.hostname.toLowerCase(), port: u.port };
}

function sourceOf(o: Origin): string {
  return `${o.scheme}://${o.host}${o.port ? `:${o.port}` : ""}`;
}

export class CspSuggester {
  private readonly sources: Record<CspItemKind, Map<string, Origin>> = { script: new Map(), connection: new Map() };
  private readonly self: Record<CspItemKind, boolean> = { script: false, connection: false };
  private readonly malicious = new Map<string, ExcludedHost>();
  private readonly pageHosts = new Set<string>();
  private selfMalicious = { count: 0, examples: [] as string[] };
  private counts = { scripts: 0, connections: 0, skipped: 0, dropped: 0 };
  private readonly dropped = new Map<string, DroppedSource>();
  private droppedMore = 0;
  private readonly judge = new LookalikeJudge(hostReferences());

  constructor(private readonly opts: CspOptions = {}) {}

  private drop(kind: DroppedSource["kind"], host: string, example: string, reason: string): void {
    if (kind !== "page host") this.counts.dropped += 1;
    const key = `${kind}\n${reason}\n${host}`;
    const row = this.dropped.get(key);
    if (row) row.count += 1;
    else if (this.dropped.size < MAX_DROPPED) this.dropped.set(key, { kind, host, example, reason, count: 1 });
    else this.droppedMore += 1;
  }

  private get threshold(): number {
    return this.opts.maliciousBelow ?? MALICIOUS_SCORE_THRESHOLD;
  }

  private get threatThreshold(): number {
    return this.opts.threatBelow ?? THREAT_SCORE_THRESHOLD;
  }

  add(kind: CspItemKind, raw: Record<string, unknown>): void {
    if (kind === "script") this.counts.scripts += 1;
    else this.counts.connections += 1;
    const url = typeof raw.url === "string" ? raw.url : "";
    const pageHost = typeof raw.host === "string" ? raw.host.toLowerCase() : "";
    if (pageHost) {
      const problem = hostPartProblem(pageHost.replace(/\.$/, ""));
      if (problem === undefined && !pageHost.startsWith("*")) this.pageHosts.add(pageHost);
      else this.drop("page host", pageHost, url, `not a host the policy's expression can name: ${problem ?? "'*'"}`);
    }
    const origin = originOf(url);
    if (!origin) {
      this.counts.skipped += 1;
      return;
    }
    const built = hostSource({ scheme: origin.scheme, host: origin.host, port: origin.port });
    if (built.problem !== undefined) {
      this.drop(kind, origin.host, url, `not a CSP source: ${built.problem}`);
      return;
    }
    const look = this.judge.judge(url, pageHost || undefined);
    if (look) {
      const like = look.looks_like ? `looks like ${look.looks_like}: ` : "";
      this.drop(kind, look.host, url, `look-alike host: ${like}${look.reasons.join("; ")}`);
      return;
    }
    const isSelf = origin.host === pageHost && (origin.scheme === "https" || origin.scheme === "wss");
    const finding =
      kind === "script"
        ? classifyScript(raw, { js_integrity: this.threshold, threat: this.threatThreshold })
        : classifyConnection(raw);
    if (finding) {
      if (isSelf) {
        this.selfMalicious.count += 1;
        if (this.selfMalicious.examples.length < MAX_EXAMPLES) this.selfMalicious.examples.push(url);
        return;
      }
      const ex = this.malicious.get(origin.host) ?? { host: origin.host, scripts: 0, connections: 0, reasons: [] };
      if (kind === "script") ex.scripts += 1;
      else ex.connections += 1;
      for (const r of finding.reasons.map((r) => r.replace(/^([a-z_]+_score) \d+ </, "$1 <"))) {
        if (!ex.reasons.includes(r)) ex.reasons.push(r);
      }
      this.malicious.set(origin.host, ex);
      return;
    }
    if (isSelf) this.self[kind] = true;
    else this.sources[kind].set(sourceOf(origin), origin);
  }

  result(): CspSuggestion {
    const script_src = this.directiveSources("script");
    const connect_src = this.directiveSources("connection");
    // No script seen: script-src 'none'; no connection: no connect-src at all.
    const value = serializePolicy([
      ["script-src", script_src],
      ...(connect_src.length ? [["connect-src", connect_src] as const] : []),
    ]);
    return {
      script_src,
      connect_src,
      value,
      excluded: [...this.malicious.values()]
        .map((e) => ({ ...e, reasons: [...e.reasons] }))
        .sort((a, b) => b.scripts + b.connections - (a.scripts + a.connections) || (a.host < b.host ? -1 : 1)),
      self_hosted_malicious: { count: this.selfMalicious.count, examples: [...this.selfMalicious.examples] },
      page_hosts: [...this.pageHosts].sort(),
      dropped: [...this.dropped.values()].map((d) => ({ ...d })),
      dropped_more: this.droppedMore,
      counts: { ...this.counts },
      malicious_below: this.threshold,
      threat_below: this.threatThreshold,
    };
  }

  private isMaliciousHost(host: string): boolean {
    return this.malicious.has(host);
  }

  private directiveSources(kind: CspItemKind): string[] {
    // A host both benign and malicious (different URLs) is left out: CSP cannot tell them apart.
    const origins = [...this.sources[kind].values()].filter((o) => !this.isMaliciousHost(o.host));
    const collapsed = collapseWildcards(origins, this.opts.wildcardThreshold ?? DEFAULT_WILDCARD_THRESHOLD, (parent) =>
      [...this.malicious.keys()].some((h) => h.endsWith(`.${parent}`)),
    );
    return [...(this.self[kind] ? ["'self'"] : []), ...[...new Set(collapsed)].sort()];
  }
}

/** Replaces `threshold` or more origins that differ only in their first label. */
export function collapseWildcards(
  origins: Origin[],
  threshold: number,
  coversMalicious: (parent: string) => boolean,
): string[] {
  if (threshold <= 0) return origins.map(sourceOf);
  const groups = new Map<string, Origin[]>();
  const out: string[] = [];
  for (const o of origins) {
    const dot = o.host.indexOf(".");
    const parent = dot > 0 ? o.host.slice(dot + 1) : "";
    if (!parent.includes(".") || /^[\d.]+$/.test(o.host)) {
      out.push(sourceOf(o));
      continue;
    }
    const key = `${o.scheme}|${o.port}|${parent}`;
    groups.set(key, [...(groups.get(key) ?? []), o]);
  }
  for (const [key, list] of groups) {
    const [scheme, port, parent] = key.split("|") as [string, string, string];
    if (list.length >= threshold && !coversMalicious(parent))
      out.push(`${scheme}://*.${parent}${port ? `:${port}` : ""}`);
    else out.push(...list.map(sourceOf));
  }
  return out;
}

export function hostExpression(hosts: string[]): string {
  if (hosts.length === 0) return "true";
  if (hosts.length === 1) return `http.host eq ${JSON.stringify(hosts[0])}`;
  return `http.host in {${hosts.map((h) => JSON.stringify(h)).join(" ")}}`;
}
