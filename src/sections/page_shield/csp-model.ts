// The one CSP model (CSP Level 3): a Content-Security-Policy judged by its effect in a browser.
// Spec: docs/configuration.md, `page_shield`.
import { type CspPolicy, parseHeader } from "./csp-grammar.js";
import { type Aspect, allowedBeyond, type SelfOrigin, type SourceList, sourceList } from "./csp-sources.js";

interface Effective {
  name: string;
  /** The directives a browser takes the list from, the first present (CSP3 §6.8.3). */
  chain: readonly string[];
  aspect: Aspect;
}

const URL_ONLY: Aspect = "url";

/** Each kind of load a browser checks, by its effective directive. */
const EFFECTIVE: readonly Effective[] = [
  { name: "script-src-elem", chain: ["script-src-elem", "script-src", "default-src"], aspect: "script" },
  { name: "script-src-attr", chain: ["script-src-attr", "script-src", "default-src"], aspect: "script-attr" },
  // eval and WebAssembly compilation are checked against script-src itself.
  { name: "script-src", chain: ["script-src", "default-src"], aspect: "eval" },
  { name: "worker-src", chain: ["worker-src", "child-src", "script-src", "default-src"], aspect: "script" },
  { name: "style-src-elem", chain: ["style-src-elem", "style-src", "default-src"], aspect: "style" },
  { name: "style-src-attr", chain: ["style-src-attr", "style-src", "default-src"], aspect: "style-attr" },
  { name: "frame-src", chain: ["frame-src", "child-src", "default-src"], aspect: URL_ONLY },
  { name: "fenced-frame-src", chain: ["fenced-frame-src", "frame-src", "child-src", "default-src"], aspect: URL_ONLY },
  ...["connect-src", "img-src", "font-src", "media-src", "object-src", "manifest-src"].map((name) => ({
    name,
    chain: [name, "default-src"],
    aspect: URL_ONLY,
  })),
  // Navigation and document directives have no fallback.
  ...["base-uri", "form-action", "frame-ancestors"].map((name) => ({ name, chain: [name], aspect: URL_ONLY })),
];

const FETCH_NAMES: ReadonlySet<string> = new Set(EFFECTIVE.flatMap((e) => e.chain));

/** Directives that only report: they restrict nothing (Cloudflare adds its own). */
const REPORTING: ReadonlySet<string> = new Set(["report-uri", "report-to"]);

const MAX_TOKENS = 3;

export interface CspJudgement {
  /** Whether the page allows nothing the required CSP does not. */
  meets: boolean;
  /** Why not, one line each: `script-src-elem allows "*"`, `worker-src is not restricted`. */
  reasons: string[];
}

function selfOrigin(pageUrl: string): SelfOrigin {
  try {
    const u = new URL(pageUrl);
    return { scheme: u.protocol.slice(0, -1), host: u.hostname.toLowerCase(), ...(u.port ? { port: +u.port } : {}) };
  } catch {
    // A page URL that does not parse gives 'self' no host to match.
    return { scheme: "https", host: "" };
  }
}

function effectiveTokens(policy: CspPolicy, chain: readonly string[]): readonly string[] | undefined {
  for (const name of chain) {
    const tokens = policy.directives.get(name);
    if (tokens !== undefined) return tokens;
  }
  return undefined;
}

function shown(token: string): string {
  return JSON.stringify(token.length <= 60 ? token : `${token.slice(0, 59)}…`);
}

/** What one page policy allows beyond the required list for one effective directive, as one reason. */
function gapOf(page: CspPolicy, required: SourceList, e: Effective, self: SelfOrigin): string | undefined {
  const got = effectiveTokens(page, e.chain);
  if (got === undefined) return `${e.name} is not restricted`;
  const beyond = [
    ...new Set(allowedBeyond(sourceList(got, e.aspect), required, e.aspect, { self, directive: e.name })),
  ];
  if (beyond.length === 0) return undefined;
  const more = beyond.length > MAX_TOKENS ? ` and ${beyond.length - MAX_TOKENS} more` : "";
  return `${e.name} allows ${beyond.slice(0, MAX_TOKENS).map(shown).join(" ")}${more}`;
}

/** The effective directives the required policy restricts and no page policy restricts as much. */
function fetchGaps(page: readonly CspPolicy[], required: CspPolicy, self: SelfOrigin): string[] {
  const out: string[] = [];
  for (const e of EFFECTIVE) {
    const want = effectiveTokens(required, e.chain);
    if (want === undefined) continue;
    const list = sourceList(want, e.aspect);
    let first: string | undefined;
    // Every policy of the page applies: one that allows no more is enough.
    const met = page.some((p) => {
      const gap = gapOf(p, list, e, self);
      first ??= gap;
      return gap === undefined;
    });
    if (!met) out.push(first ?? `${e.name} is not restricted`);
  }
  return out;
}

function keyword(token: string): string {
  return token.startsWith("'") ? token.toLowerCase() : token;
}

/** Whether a page's directive of a kind without source lists allows no more than the required one. */
function otherMeets(name: string, got: readonly string[], want: readonly string[]): boolean {
  if (name === "upgrade-insecure-requests" || name === "block-all-mixed-content") return true;
  if (name === "sandbox") {
    const allowed = new Set(want.map((t) => t.toLowerCase()));
    return got.every((t) => allowed.has(t.toLowerCase()));
  }
  const g = got.map(keyword);
  const w = new Set(want.map(keyword));
  if (name === "require-trusted-types-for") return [...w].every((t) => g.includes(t));
  if (name === "trusted-types")
    return g.filter((t) => t !== "'none'").every((t) => w.has(t) || (!t.startsWith("'") && w.has("*")));
  // A directive the model does not read is met only as written.
  return new Set(g).size === w.size && g.every((t) => w.has(t));
}

function otherGaps(page: readonly CspPolicy[], required: CspPolicy): string[] {
  const out: string[] = [];
  for (const [name, want] of required.directives) {
    if (FETCH_NAMES.has(name) || REPORTING.has(name)) continue;
    if (page.some((p) => p.directives.has(name) && otherMeets(name, p.directives.get(name)!, want))) continue;
    const sent = page.some((p) => p.directives.has(name));
    out.push(sent ? `${name} allows more than ${shown(want.join(" "))}` : `${name} is not sent`);
  }
  return out;
}

export function cspAtLeastAsStrict(page: string | undefined, required: string, pageUrl: string): CspJudgement {
  if (page === required) return { meets: true, reasons: [] };
  const policies = page === undefined ? [] : parseHeader(page);
  const self = selfOrigin(pageUrl);
  const reasons = parseHeader(required).flatMap((q) => [...fetchGaps(policies, q, self), ...otherGaps(policies, q)]);
  const unique = [...new Set(reasons)];
  return { meets: unique.length === 0, reasons: unique };
}
