// What one CSP source list lets a browser load, and whether a page's list allows nothing a required one does not.
// Spec: docs/configuration.md, `page_shield`.
import { type CspSource, parseSource } from "./csp-grammar.js";

/** The page's origin, which `'self'` and a source without a scheme are read against. */
export interface SelfOrigin {
  scheme: string;
  host: string;
  port?: number;
}

/** What part of a list a browser consults for a kind of load. */
export type Aspect = "script" | "script-attr" | "style" | "style-attr" | "eval" | "url";

export interface SourceList {
  /** Each URL source (`*`, a scheme, a host, `'self'`): as read, its normalized form, as written. */
  urls: Array<{ source: CspSource; key: string; token: string }>;
  inline: boolean;
  eval: boolean;
  wasmEval: boolean;
  trustedTypesEval: boolean;
  strictDynamic: boolean;
  unsafeHashes: boolean;
  speculationRules: boolean;
  nonces: Set<string>;
  hashes: Set<string>;
  /** Tokens the model cannot read: on a page, they might allow anything. */
  unknown: string[];
}

const DEFAULT_PORTS: Readonly<Record<string, number>> = { http: 80, https: 443, ws: 80, wss: 443, ftp: 21 };
const SOCKET_SCHEMES = new Set(["ws", "wss"]);
const NETWORK_SCHEMES = new Set(["http", "https", "ws", "wss"]);

/** Keywords that allow no load themselves ('unsafe-allow-redirects' is navigate-to's, which no browser enforces). */
const INERT = new Set([
  "'none'",
  "'report-sample'",
  "'report-sha256'",
  "'report-sha384'",
  "'report-sha512'",
  "'unsafe-allow-redirects'",
]);

type Flag = "inline" | "eval" | "wasmEval" | "trustedTypesEval" | "strictDynamic" | "unsafeHashes" | "speculationRules";
const FLAGS: Readonly<Record<string, Flag>> = {
  "'unsafe-inline'": "inline",
  "'unsafe-eval'": "eval",
  "'wasm-unsafe-eval'": "wasmEval",
  "'trusted-types-eval'": "trustedTypesEval",
  "'strict-dynamic'": "strictDynamic",
  "'unsafe-hashes'": "unsafeHashes",
  "'inline-speculation-rules'": "speculationRules",
};

function sourceKey(s: CspSource): string {
  if (s.kind === "host") return `${s.scheme ?? ""}://${s.host}:${s.port ?? ""}${s.path ?? ""}`;
  if (s.kind === "scheme") return `${s.scheme}:`;
  return s.kind === "keyword" ? s.keyword : "*";
}

/** Reads a directive's tokens, then drops what the browser ignores for `aspect` (CSP3 §8.2, §8.3). */
export function sourceList(tokens: readonly string[], aspect: Aspect): SourceList {
  const list: SourceList = {
    urls: [],
    inline: false,
    eval: false,
    wasmEval: false,
    trustedTypesEval: false,
    strictDynamic: false,
    unsafeHashes: false,
    speculationRules: false,
    nonces: new Set(),
    hashes: new Set(),
    unknown: [],
  };
  for (const token of tokens) {
    const s = parseSource(token);
    if (s.kind === "nonce") list.nonces.add(s.value);
    else if (s.kind === "hash") list.hashes.add(s.value);
    else if (s.kind === "invalid") list.unknown.push(token);
    else if (s.kind === "keyword" && s.keyword !== "'self'") {
      const flag = FLAGS[s.keyword];
      if (flag) list[flag] = true;
      else if (!INERT.has(s.keyword)) list.unknown.push(token);
    } else list.urls.push({ source: s, key: sourceKey(s), token });
  }
  const scripts = aspect === "script" || aspect === "script-attr";
  // A nonce or a hash turns 'unsafe-inline' off, and so does 'strict-dynamic' for scripts.
  if (list.nonces.size > 0 || list.hashes.size > 0 || (scripts && list.strictDynamic)) list.inline = false;
  // 'strict-dynamic' makes a browser ignore host and scheme sources and 'self'.
  if (aspect === "script" && list.strictDynamic) list.urls = [];
  return list;
}

type HostPattern = { any: true } | { star: true } | { exact: string } | { under: string };

interface Atom {
  scheme: string;
  host: HostPattern;
  ports: "*" | number[];
  path?: string;
}

/** The schemes a scheme-part matches (CSP3 §6.7.2.8): the page's side widest, the required side narrowest. */
function schemes(scheme: string, widest: boolean): string[] {
  if (scheme === "http") return ["http", "https"];
  if (scheme === "ws") return widest ? ["ws", "wss", "http", "https"] : ["ws", "wss"];
  if (scheme === "wss" && widest) return ["wss", "https"];
  return [scheme];
}

function portsOf(port: string | undefined, scheme: string, widest: boolean): "*" | number[] {
  if (port === "*") return "*";
  // -1: no port, of a scheme without a default one.
  if (port === undefined) return [DEFAULT_PORTS[scheme] ?? -1];
  const n = Number(port);
  return widest && n === 80 ? [80, 443] : [n];
}

function hostPattern(host: string): HostPattern {
  if (host === "*") return { star: true };
  return host.startsWith("*.") ? { under: host.slice(2) } : { exact: host };
}

/** What `'self'` matches (CSP3 §6.7.2.3): the page's origin, and on http its https and socket forms. */
function selfAtoms(self: SelfOrigin, widest: boolean): Atom[] {
  const secure = self.scheme === "https" ? ["https", "wss"] : ["http", "https", "ws", "wss"];
  const narrow = self.scheme === "http" ? ["http", "https"] : [self.scheme];
  const list = !widest ? narrow : NETWORK_SCHEMES.has(self.scheme) ? secure : [self.scheme];
  return list.map((scheme) => ({
    scheme,
    host: { exact: self.host },
    ports: self.port !== undefined ? [self.port] : portsOf(undefined, scheme, widest),
  }));
}

function atoms(s: CspSource, self: SelfOrigin, widest: boolean): Atom[] {
  if (s.kind === "keyword") return selfAtoms(self, widest);
  if (s.kind === "star") {
    const list = new Set([...(widest ? NETWORK_SCHEMES : ["http", "https"]), self.scheme]);
    return [...list].map((scheme) => ({ scheme, host: { any: true }, ports: "*" }));
  }
  if (s.kind === "scheme")
    return schemes(s.scheme, widest).map((scheme) => ({ scheme, host: { any: true }, ports: "*" }));
  if (s.kind !== "host") return [];
  return schemes(s.scheme ?? self.scheme, widest).map((scheme) => ({
    scheme,
    host: hostPattern(s.host),
    ports: portsOf(s.port, scheme, widest),
    ...(s.path !== undefined ? { path: s.path } : {}),
  }));
}

function hostCovered(p: HostPattern, q: HostPattern, scheme: string): boolean {
  if ("any" in q) return true;
  if ("any" in p) return "star" in q && NETWORK_SCHEMES.has(scheme);
  if ("star" in q) return true;
  if ("star" in p) return false;
  if ("under" in q) {
    const name = "exact" in p ? p.exact : p.under;
    return name.endsWith(`.${q.under}`) || ("under" in p && p.under === q.under);
  }
  return "exact" in p && p.exact === q.exact;
}

function pathCovered(p: string | undefined, q: string | undefined): boolean {
  if (q === undefined || q === "/") return true;
  if (p === undefined) return false;
  return q.endsWith("/") ? p.startsWith(q) : p === q;
}

function atomCovered(p: Atom, q: Atom): boolean {
  if (p.scheme !== q.scheme || !hostCovered(p.host, q.host, p.scheme) || !pathCovered(p.path, q.path)) return false;
  if (q.ports === "*" || "any" in q.host) return true;
  const qPorts = q.ports;
  return p.ports !== "*" && p.ports.every((n) => qPorts.includes(n));
}

/** A required list's URL sources, read once however many page policies are held against it. */
const wantedOf = new WeakMap<SourceList, { keys: Set<string>; atoms: Atom[] }>();

function wanted(required: SourceList, self: SelfOrigin): { keys: Set<string>; atoms: Atom[] } {
  let w = wantedOf.get(required);
  if (!w) {
    w = {
      keys: new Set(required.urls.map((u) => u.key)),
      atoms: required.urls.flatMap((u) => atoms(u.source, self, false)),
    };
    wantedOf.set(required, w);
  }
  return w;
}

function uncoveredUrls(page: SourceList, required: SourceList, self: SelfOrigin, connect: boolean): string[] {
  const { keys, atoms: want } = wanted(required, self);
  // Only connect-src can request ws: and wss: URLs.
  const relevant = (a: Atom) => connect || !SOCKET_SCHEMES.has(a.scheme);
  const covered = (a: Atom) => want.some((q) => atomCovered(a, q));
  return page.urls
    .filter((u) => !keys.has(u.key) && !atoms(u.source, self, true).filter(relevant).every(covered))
    .map((u) => u.token);
}

function hashesAllowed(page: SourceList, required: SourceList, aspect: Aspect): string[] {
  const attr = aspect === "script-attr" || aspect === "style-attr";
  if (attr && !page.unsafeHashes) return [];
  const covered = (h: string) =>
    (required.hashes.has(h) && (!attr || required.unsafeHashes)) || (aspect !== "script" && required.inline);
  const out = [...page.hashes].filter((h) => !covered(h)).map((h) => `'${h}'`);
  if (aspect === "script" && page.unsafeHashes && page.hashes.size > 0 && !required.unsafeHashes && !required.inline)
    out.push("'unsafe-hashes'");
  return out;
}

/** What the page's list allows for `aspect` that the required list does not, as the tokens that allow it. */
/** `required` is read once against `ctx.self`: pass the same `self` with it each time. */
export function allowedBeyond(
  page: SourceList,
  required: SourceList,
  aspect: Aspect,
  ctx: { self: SelfOrigin; directive: string },
): string[] {
  const out = [...page.unknown];
  if (aspect === "eval") {
    if (page.eval && !required.eval) out.push("'unsafe-eval'");
    if (page.wasmEval && !required.wasmEval && !required.eval) out.push("'wasm-unsafe-eval'");
    if (page.trustedTypesEval && !required.trustedTypesEval && !required.eval) out.push("'trusted-types-eval'");
    return out;
  }
  if (aspect === "script" || aspect === "style" || aspect === "url")
    out.push(...uncoveredUrls(page, required, ctx.self, ctx.directive === "connect-src"));
  if (aspect === "url") return out;
  if (page.inline && !required.inline) out.push("'unsafe-inline'");
  out.push(...hashesAllowed(page, required, aspect));
  if (aspect === "script" || aspect === "style")
    out.push(...[...page.nonces].filter((n) => !required.nonces.has(n)).map((n) => `'${n}'`));
  if (aspect === "script" && page.strictDynamic && !required.strictDynamic) out.push("'strict-dynamic'");
  if (aspect === "script" && page.speculationRules && !required.speculationRules && !required.inline)
    out.push("'inline-speculation-rules'");
  return out;
}
