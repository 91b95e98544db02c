// Matching for the script inventory.
// Spec: docs/pci-script-inventory.md.
import { hostPartProblem } from "./csp-grammar.js";
import { hasUserinfo, invisibleCharacters, urlParts } from "./url-parts.js";

function startsAtBoundary(stem: string, url: string): boolean {
  if (!url.startsWith(stem)) return false;
  if (urlParts(stem)?.closed) return true;
  const rest = url.slice(stem.length);
  return rest === "" || /^[/?#]/.test(rest);
}

export function urlMatches(pattern: string, url: string): boolean {
  if (hasUserinfo(url)) return false;
  if (pattern.endsWith("*")) return startsAtBoundary(pattern.slice(0, -1), url);
  return url === pattern;
}

export function isPrefix(pattern: string): boolean {
  return pattern.endsWith("*");
}

export function urlCovers(a: string, b: string): boolean {
  if (!isPrefix(a)) return !isPrefix(b) && a === b;
  return startsAtBoundary(a.slice(0, -1), isPrefix(b) ? b.slice(0, -1) : b);
}

/** A page pattern as a matcher of page URLs (`example.com/checkout`, no scheme), like the API's filter. */
export function pageMatcher(pattern: string): (page: string) => boolean {
  const p = pattern.toLowerCase();
  const start = p.startsWith("*");
  const end = p.endsWith("*") && p.length > 1;
  const core = p.slice(start ? 1 : 0, end ? -1 : undefined);
  return (page) => {
    const v = stripScheme(page).toLowerCase();
    if (start && end) return v.includes(core);
    if (start) return v.endsWith(core);
    if (end) return v.startsWith(core);
    return v === core;
  };
}

export function pageInScope(patterns: readonly string[], page: string): boolean {
  return patterns.some((p) => pageMatcher(p)(page));
}

function stripScheme(page: string): string {
  return page.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "");
}

export function pagePatternProblem(pattern: string): string | undefined {
  if (pattern.trim() === "" || /^\*+$/.test(pattern))
    return "a page pattern must name a host and path, e.g. example.com/checkout*";
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(pattern))
    return (
      `a page pattern has no scheme: write ${pattern.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "")} ` +
      `(host/path, as Page Shield's page_url filter takes it)`
    );
  if (/[\s,]/.test(pattern))
    return "a page pattern holds no spaces or commas (Page Shield's page_url filter is a comma list)";
  if (pattern.slice(1, -1).includes("*"))
    return (
      "'*' may only stand at the start or the end of a page pattern (Page Shield's page_url filter " +
      "supports no other wildcard)"
    );
  return undefined;
}

export function urlPatternProblem(url: string): string | undefined {
  if (!/^https?:\/\/[^/\s*]+/i.test(url))
    return "a script url is an absolute http(s) URL, e.g. https://js.stripe.com/v3/ (a * at the end makes it a prefix)";
  if (url.slice(0, -1).includes("*")) return "'*' may only stand at the end of a script url (a prefix)";
  if (/\s/.test(url)) return "a script url holds no spaces";
  const invisible = invisibleCharacters(url);
  if (invisible.length > 0)
    return (
      `a script url holds no invisible characters (${invisible.join(", ")}): it would read like another ` +
      "URL in every report; write it as plain text"
    );
  if (/[\u0000-\u001f\u007f-\u009f]/.test(url)) return "a script url holds no control characters";
  const parts = urlParts(url);
  if (parts?.userinfo !== undefined)
    return (
      `a script url holds no user info (${parts.userinfo}@): a browser loads it from the host after the @; ` +
      "write the URL without it"
    );
  const hostOnly = parts && isPrefix(url) && !parts.closed ? parts.host.replace(/\*$/, "") : parts?.host;
  const hostProblem = hostOnly === undefined ? undefined : hostPartProblem(hostOnly);
  if (hostProblem) return `the host of a script url is letters, digits, '-' and '.': ${hostProblem}`;
  if (parts?.port !== undefined && !/^\d*\*?$/.test(parts.port))
    return `the port of a script url is a number: ${JSON.stringify(parts.port)}`;
  if (isPrefix(url) && parts && !parts.closed) {
    const stem = url.slice(0, -1).replace(/[.:@]+$/, "");
    return (
      `the '*' of ${url} would extend the host: it also covers ${stem}.evil.example/…, another host; end ` +
      `the host with '/': write ${stem}/* (every script of that host), or an exact URL`
    );
  }
  return undefined;
}
