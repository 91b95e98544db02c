// The enforcing control of the inventory (PCI DSS 6.4.3): a Page Shield `allow` policy whose script-src
// holds exactly the authorized scripts, built through the CSP grammar. Pure.
// Spec: docs/commands/csp.md (how each entry becomes a source).
import { hostSource, serializePolicy, urlParts } from "../sections/index.js";

export { hostPartProblem, hostSource, serializePolicy } from "../sections/index.js";
import type { ScriptInventory } from "./types.js";

interface InventoryPolicy {
  description: string;
  action: "allow" | "log";
  expression: string;
  value: string;
  enabled: boolean;
}

export interface InventoryPolicyResult {
  policy: InventoryPolicy;
  notes: string[];
}

export function cspPath(path: string): string {
  let out = "";
  let i = 0;
  for (const ch of path) {
    if (/[A-Za-z0-9\-._~!$&()*+=:@/]/.test(ch) || (ch === "%" && /^%[0-9A-Fa-f]{2}/.test(path.slice(i)))) out += ch;
    else out += encodeURIComponent(ch).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
    i += ch.length;
  }
  return out;
}

export function cspSource(url: string): { source?: string; note?: string } {
  const prefix = url.endsWith("*");
  const raw = prefix ? url.slice(0, -1) : url;
  const parts = urlParts(raw);
  if (!parts || !/^https?$/.test(parts.scheme) || parts.userinfo !== undefined)
    return { note: `${url} (left out: not an http(s) URL without user info)` };
  const origin = hostSource({ scheme: parts.scheme, host: parts.host, ...(parts.port ? { port: parts.port } : {}) });
  if (origin.problem !== undefined) return { note: `${url} (left out: ${origin.problem})` };
  const rest = raw.slice(raw.indexOf("//") + 2 + parts.authority.length).replace(/\\/g, "/");
  const pathEnd = rest.search(/[?#]/);
  const path = cspPath(pathEnd < 0 ? rest : rest.slice(0, pathEnd));
  const dropped = pathEnd >= 0 ? " (query dropped: CSP matches the path only)" : "";
  if (!prefix) return { source: `${origin.source}${path || "/"}`, ...(dropped ? { note: `${url}${dropped}` } : {}) };
  const dir = path.slice(0, path.lastIndexOf("/") + 1) || "/";
  const widened = dir !== path ? ` (widened to the directory ${dir}: CSP has no other prefix)` : "";
  return {
    source: `${origin.source}${dir}`,
    ...(widened || dropped ? { note: `${url}${widened}${dropped}` } : {}),
  };
}

function quote(s: string): string {
  return JSON.stringify(s);
}

export function pageCondition(pattern: string): string {
  const start = pattern.startsWith("*");
  const end = pattern.endsWith("*") && pattern.length > 1;
  const core = pattern.slice(start ? 1 : 0, end ? -1 : undefined);
  if (start)
    return end ? `http.request.full_uri contains ${quote(core)}` : `ends_with(http.request.full_uri, ${quote(core)})`;
  const slash = core.indexOf("/");
  const host = (slash < 0 ? core : core.slice(0, slash)).toLowerCase();
  const path = slash < 0 ? "" : core.slice(slash);
  if (path === "") return end ? `starts_with(http.host, ${quote(host)})` : `http.host eq ${quote(host)}`;
  const pathTest = end
    ? `starts_with(http.request.uri.path, ${quote(path)})`
    : `http.request.uri.path eq ${quote(path)}`;
  return `http.host eq ${quote(host)} and ${pathTest}`;
}

function pagesExpression(pages: readonly string[]): string {
  const parts = [...new Set(pages)].map(pageCondition);
  if (parts.length === 1) return parts[0]!;
  return parts.map((p) => (p.includes(" and ") ? `(${p})` : p)).join(" or ");
}

export function inventoryPolicy(
  inv: ScriptInventory,
  opts: { description: string; action: "allow" | "log" },
): InventoryPolicyResult {
  const sources = new Set<string>();
  const notes: string[] = [];
  for (const a of inv.authorized) {
    const { source, note } = cspSource(a.url);
    if (source !== undefined) sources.add(source);
    if (note) notes.push(note);
  }
  const list = [...sources].sort();
  return {
    policy: {
      description: opts.description,
      action: opts.action,
      expression: pagesExpression(inv.pages),
      // No authorized script: nothing may run on the pages in scope ('none').
      value: serializePolicy([["script-src", list]]),
      enabled: true,
    },
    notes,
  };
}
