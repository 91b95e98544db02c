// The grammar of a Content-Security-Policy value.
// Spec: docs/configuration.md, `page_shield`.

/** The directives of CSP Level 3 (and the older ones browsers still read), lower-case. */
const CSP_DIRECTIVES: ReadonlySet<string> = new Set([
  "base-uri",
  "block-all-mixed-content",
  "child-src",
  "connect-src",
  "default-src",
  "fenced-frame-src",
  "font-src",
  "form-action",
  "frame-ancestors",
  "frame-src",
  "img-src",
  "manifest-src",
  "media-src",
  "navigate-to",
  "object-src",
  "plugin-types",
  "prefetch-src",
  "report-to",
  "report-uri",
  "require-sri-for",
  "require-trusted-types-for",
  "sandbox",
  "script-src",
  "script-src-attr",
  "script-src-elem",
  "style-src",
  "style-src-attr",
  "style-src-elem",
  "trusted-types",
  "upgrade-insecure-requests",
  "webrtc",
  "worker-src",
]);

const SOURCE_LIST_DIRECTIVES: ReadonlySet<string> = new Set([
  "base-uri",
  "child-src",
  "connect-src",
  "default-src",
  "fenced-frame-src",
  "font-src",
  "form-action",
  "frame-ancestors",
  "frame-src",
  "img-src",
  "manifest-src",
  "media-src",
  "navigate-to",
  "object-src",
  "prefetch-src",
  "script-src",
  "script-src-attr",
  "script-src-elem",
  "style-src",
  "style-src-attr",
  "style-src-elem",
  "worker-src",
]);

const KEYWORDS = new Set([
  "'self'",
  "'none'",
  "'unsafe-inline'",
  "'unsafe-eval'",
  "'strict-dynamic'",
  "'unsafe-hashes'",
  "'report-sample'",
  "'unsafe-allow-redirects'",
  "'wasm-unsafe-eval'",
  "'inline-speculation-rules'",
  "'trusted-types-eval'",
  "'report-sha256'",
  "'report-sha384'",
  "'report-sha512'",
]);

const HOST_CHARS = /^(?:\*\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*\.?$/i;
const SCHEME = /^[a-z][a-z0-9+.-]*$/i;
/** pchar of RFC 3986 (unreserved, pct-encoded, sub-delims but `;` `,` `'`, ":" and "@") and "/". */
const PATH = /^\/(?:[A-Za-z0-9\-._~!$&()*+=:@/]|%[0-9A-Fa-f]{2})*$/;
const NONCE_OR_HASH = /^'(?:nonce|sha256|sha384|sha512)-[A-Za-z0-9+/_-]+={0,2}'$/i;

/** A control character a header value cannot hold (a tab is whitespace). */
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/;

const CSP_WHITESPACE = /[\t\n\f\r ]+/;

/** The character of `text` a host-part cannot hold, named for a message. */
export function hostPartProblem(host: string): string | undefined {
  if (host === "") return "an empty host";
  if (HOST_CHARS.test(host)) return undefined;
  const bad = [...host].find((c, i) => !/[A-Za-z0-9.-]/.test(c) && !(c === "*" && i === 0));
  if (bad === undefined) return "not a host name (empty label, or '*' not followed by '.')";
  return characterProblem(bad);
}

function characterProblem(c: string): string {
  if (c === ";") return "a ';' would end the directive and start another one";
  if (c === ",") return "a ',' would start a second policy";
  if (c === "'" || c === '"') return `a quote (${c}) would start a keyword or break the value`;
  if (/\s/u.test(c)) return "whitespace would split it into several sources";
  const code = c.codePointAt(0)!;
  const u = `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
  if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return `a control character (${u})`;
  if (code > 0x7f) return `a character outside ASCII (${u}; a host is written in punycode, xn--…)`;
  return `'${c}' is not a host character (letters, digits, '-' and '.')`;
}

/** The host-source `scheme://host[:port]` (host lower-cased, as CSP compares it), or why it cannot be one. */
export function hostSource(o: {
  scheme: string;
  host: string;
  port?: string;
}): { source: string; problem?: undefined } | { source?: undefined; problem: string } {
  if (!SCHEME.test(o.scheme)) return { problem: `the scheme ${JSON.stringify(o.scheme)} is not a URL scheme` };
  const host = o.host.toLowerCase();
  const hostProblem = hostPartProblem(host);
  if (hostProblem) return { problem: `its host: ${hostProblem}` };
  if (o.port !== undefined && o.port !== "" && !/^\d{1,5}$/.test(o.port))
    return { problem: `its port ${JSON.stringify(o.port)} is not a number` };
  return { source: `${o.scheme.toLowerCase()}://${host}${o.port ? `:${o.port}` : ""}` };
}

/** One source expression as a browser reads it: keywords and schemes lower-cased, a host lower-cased. */
export type CspSource =
  | { kind: "star" }
  | { kind: "keyword"; keyword: string }
  | { kind: "nonce"; value: string }
  | { kind: "hash"; value: string }
  | { kind: "scheme"; scheme: string }
  | { kind: "host"; scheme?: string; host: string; port?: string; path?: string }
  | { kind: "invalid"; problem: string };

export function parseSource(token: string): CspSource {
  if (token === "*") return { kind: "star" };
  if (token.startsWith("'")) {
    const lower = token.toLowerCase();
    if (KEYWORDS.has(lower)) return { kind: "keyword", keyword: lower };
    if (!NONCE_OR_HASH.test(token)) return { kind: "invalid", problem: "not a CSP keyword, nonce or hash" };
    const dash = token.indexOf("-");
    const algorithm = token.slice(1, dash).toLowerCase();
    const value = `${algorithm}-${token.slice(dash + 1, -1)}`;
    return algorithm === "nonce" ? { kind: "nonce", value } : { kind: "hash", value };
  }
  if (/^[a-z][a-z0-9+.-]*:$/i.test(token)) return { kind: "scheme", scheme: token.slice(0, -1).toLowerCase() };
  const m = /^(?:([a-z][a-z0-9+.-]*):\/\/)?([^/:]*)(?::([^/]*))?(\/.*)?$/i.exec(token);
  if (!m) return { kind: "invalid", problem: "not a host-source (scheme://host[:port][/path])" };
  const [, scheme, host = "", port, path] = m;
  const problem = hostSourceProblem(host, port, path);
  if (problem) return { kind: "invalid", problem };
  return {
    kind: "host",
    ...(scheme !== undefined ? { scheme: scheme.toLowerCase() } : {}),
    host: host.toLowerCase(),
    ...(port !== undefined ? { port } : {}),
    ...(path !== undefined ? { path } : {}),
  };
}

function hostSourceProblem(host: string, port: string | undefined, path: string | undefined): string | undefined {
  if (host !== "*") {
    const hostProblem = hostPartProblem(host);
    if (hostProblem) return `its host: ${hostProblem}`;
  }
  if (port !== undefined && !/^(?:\d{1,5}|\*)$/.test(port)) return `its port '${port}' is not a number or *`;
  if (path !== undefined && !PATH.test(path)) {
    const bad = /[^A-Za-z0-9\-._~!$&()*+=:@/%]/u.exec(path)?.[0];
    return `its path: ${bad === undefined ? "a '%' not followed by two hex digits" : characterProblem(bad)}`;
  }
  return undefined;
}

/** Whether `token` is one source expression of a source list (keyword, nonce, hash, scheme, host). */
export function sourceExpressionProblem(token: string): string | undefined {
  const source = parseSource(token);
  return source.kind === "invalid" ? source.problem : undefined;
}

interface CspDirective {
  name: string;
  written: string;
  values: readonly string[];
  afterSemicolon: boolean;
  /** Whether an earlier directive has its name (a browser ignores this one). */
  duplicate: boolean;
}

export interface CspPolicy {
  directives: ReadonlyMap<string, readonly string[]>;
  list: readonly CspDirective[];
}

/** A directive name's characters (CSP3 directive-name); a browser ignores a directive with others. */
const DIRECTIVE_NAME = /^[a-z0-9-]+$/;

export function parsePolicy(text: string): CspPolicy {
  const directives = new Map<string, readonly string[]>();
  const list: CspDirective[] = [];
  text.split(";").forEach((raw, i) => {
    const tokens = raw.split(CSP_WHITESPACE).filter((t) => t !== "");
    if (tokens.length === 0) return;
    const name = tokens[0]!.toLowerCase();
    const duplicate = directives.has(name);
    const values = tokens.slice(1);
    if (!duplicate && DIRECTIVE_NAME.test(name)) directives.set(name, values);
    list.push({ name, written: tokens[0]!, values, afterSemicolon: i > 0, duplicate });
  });
  return { directives, list };
}

export function parseHeader(value: string): CspPolicy[] {
  return value
    .split(",")
    .map(parsePolicy)
    .filter((p) => p.directives.size > 0);
}

export function serializePolicy(directives: ReadonlyArray<readonly [string, readonly string[]]>): string {
  return directives.map(([name, sources]) => `${name} ${sources.length > 0 ? sources.join(" ") : "'none'"}`).join("; ");
}

export interface PolicyValueProblem {
  severity: "error" | "warning";
  message: string;
}

/** What is wrong with a policy value, read as a browser reads it. */
export function policyValueProblems(value: string, opts: { showText?: boolean } = {}): PolicyValueProblem[] {
  const show = opts.showText ?? true;
  const quoted = (text: string, fallback: string) => (show ? `'${text}'` : fallback);
  const out: PolicyValueProblem[] = [];
  const control = CONTROL.exec(value)?.[0];
  if (control !== undefined)
    out.push({
      severity: "error",
      message: `the value holds ${characterProblem(control)}: a header value is one line of text`,
    });
  if (value.includes(",")) {
    const token = value.split(CSP_WHITESPACE).find((t) => t.includes(",")) ?? ",";
    out.push({
      severity: "error",
      message:
        `a ',' (in ${quoted(token, "the value")}) would start a second policy: a policy value holds one ` +
        "policy; percent-encode a ',' of a path as %2C, or write a second policy entry",
    });
  }
  // A directive ends at "; ": a ';' inside one token is part of a source.
  const glued = /(?:^|[\t\n\f\r ])([^\t\n\f\r ;]+;[^\t\n\f\r ]+)/.exec(value);
  if (glued)
    out.push({
      severity: "error",
      message:
        `a ';' may only separate directives: ${quoted(glued[1]!, "a token of the value")} has one inside, ` +
        "which would end the directive there and start another one; write '; ' between directives, and " +
        "percent-encode a ';' of a source as %3B",
    });
  for (const d of parsePolicy(value).list) {
    if (!CSP_DIRECTIVES.has(d.name)) {
      // The first word is the policy's own; what follows a ';' must be a directive, or the ';' stood inside a source.
      if (d.afterSemicolon)
        out.push({
          severity: "error",
          message:
            `a ';' may only separate directives: ${quoted(d.written, "what follows one")} after a ';' is ` +
            "not a CSP directive (a ';' inside a source? percent-encode it as %3B)",
        });
      continue;
    }
    if (!show) continue;
    if (d.duplicate)
      out.push({
        severity: "warning",
        message: `${d.name} is given twice: a browser uses the first and ignores this one`,
      });
    if (SOURCE_LIST_DIRECTIVES.has(d.name)) out.push(...sourceWarnings(d));
  }
  return out;
}

/** A warning for each token of a source list a browser would ignore. */
function sourceWarnings(d: CspDirective): PolicyValueProblem[] {
  return d.values.flatMap((token): PolicyValueProblem[] => {
    if (token.includes(",")) return [];
    const problem = sourceExpressionProblem(token);
    if (problem === undefined) return [];
    return [
      {
        severity: "warning",
        message: `'${token}' in ${d.name} is not a valid source (${problem}): a browser ignores it`,
      },
    ];
  });
}
