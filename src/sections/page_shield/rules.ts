// Semantic rules of the page_shield section.
// Spec: docs/configuration.md, `page_shield`.
import {
  asArray,
  asRecord,
  asString,
  childPointer,
  duplicateEntries,
  itemsOf,
  literalOnly,
  pruneNeedsList,
  zonesOf,
  type Finding,
  type Rec,
  type Rule,
} from "../rules.js";
import { policyValueProblems } from "./csp-grammar.js";
import { isPrefix, pageInScope, pagePatternProblem, urlCovers, urlPatternProblem } from "./inventory-match.js";
import { isTodoJustification } from "./inventory-todo.js";
import { hasEnvReference } from "../../template.js";
import { headerNameProblem, headerValueProblem, isInsecurePageUrl, pageUrlProblem } from "./page-headers.js";

/** Two policies are one when they pin one id, or pin none and share a description. */
export const uniquePolicies: Rule = (doc) => {
  const findings: Finding[] = [];
  for (const { zone, pointer } of zonesOf(doc)) {
    const ps = asRecord(zone.page_shield);
    if (!ps) continue;
    const hint = (p: Rec) => {
      const d = asString(p.description);
      return d === undefined ? undefined : { key: d, shown: `described '${d}'` };
    };
    findings.push(
      ...duplicateEntries(ps.policies, `${pointer}/page_shield/policies`, "description", hint, {
        one: "policy",
        many: "policies",
      }),
    );
  }
  return findings;
};

/** `prune` only says what happens to live policies the file does not list. */
export const pruneNeedsPolicies: Rule = pruneNeedsList("page_shield", "policies", "policies");

const policyValues: Rule = (doc, ctx) => {
  const findings: Finding[] = [];
  for (const { zone, pointer } of zonesOf(doc)) {
    for (const { item, pointer: at } of itemsOf(
      asRecord(zone.page_shield)?.policies,
      `${pointer}/page_shield/policies`,
    )) {
      const value = asString(item.value);
      if (value === undefined) continue;
      const templated = ctx.template(`${at}/value`) !== undefined;
      for (const p of policyValueProblems(value, { showText: !templated }))
        findings.push({
          pointer: `${at}/value`,
          message: p.message,
          ...(p.severity === "warning" ? { severity: p.severity } : {}),
        });
    }
  }
  return findings;
};

/** `script_inventory` (PCI DSS 6.4.3). */
const scriptInventoryEntries: Rule = (doc) => {
  const findings: Finding[] = [];
  for (const { zone, pointer } of zonesOf(doc)) {
    const inv = asRecord(asRecord(zone.page_shield)?.script_inventory);
    if (!inv) continue;
    const base = `${pointer}/page_shield/script_inventory`;
    const seenPages = new Map<string, number>();
    asArray(inv.pages).forEach((p, i) => {
      const page = asString(p);
      if (page === undefined) return;
      const at = childPointer(`${base}/pages`, i);
      const problem = pagePatternProblem(page);
      if (problem) findings.push({ pointer: at, message: problem });
      const earlier = seenPages.get(page.toLowerCase());
      if (earlier !== undefined)
        findings.push({
          pointer: at,
          severity: "warning",
          message: `duplicate page pattern '${page}' (also item ${earlier} of this list)`,
        });
      else seenPages.set(page.toLowerCase(), i);
    });
    const urls: Array<{ url: string; index: number }> = [];
    for (const { item, pointer: at, index } of itemsOf(inv.authorized, `${base}/authorized`)) {
      const justification = asString(item.justification);
      if (justification !== undefined && justification.trim() === "") {
        findings.push({
          pointer: `${at}/justification`,
          message: "a justification is required: why the script is needed on the payment page (PCI DSS 6.4.3)",
        });
      } else if (justification !== undefined && isTodoJustification(justification)) {
        findings.push({
          pointer: `${at}/justification`,
          severity: "warning",
          message:
            "the justification is still a TODO: write why the script is needed on the payment page (until " +
            "then the entry authorizes nothing: audit reports it unreviewed)",
        });
      }
      const owner = asString(item.owner);
      if (owner === undefined || owner.trim() === "")
        findings.push({
          pointer: owner === undefined ? at : `${at}/owner`,
          severity: "warning",
          message:
            "the entry names no owner: write who owns the script (until then it authorizes nothing: audit " +
            "reports it unreviewed)",
        });
      const url = asString(item.url);
      if (url === undefined) continue;
      const problem = urlPatternProblem(url);
      if (problem) {
        findings.push({ pointer: `${at}/url`, message: problem });
        continue;
      }
      if (isPrefix(url) && asString(item.hash) !== undefined) {
        findings.push({
          pointer: `${at}/hash`,
          severity: "warning",
          message: `a hash pin on the prefix ${url} applies to every script it covers: pin exact urls instead`,
        });
      }
      for (const other of urls) {
        const message =
          other.url === url
            ? `duplicate url '${url}' (also item ${other.index} of this list)`
            : urlCovers(other.url, url)
              ? `'${url}' is already covered by '${other.url}' (item ${other.index}): the entries overlap`
              : urlCovers(url, other.url)
                ? `'${url}' covers '${other.url}' (item ${other.index}) too: the entries overlap`
                : undefined;
        if (message) {
          findings.push({ pointer: `${at}/url`, severity: "warning", message });
          break;
        }
      }
      urls.push({ url, index });
    }
  }
  return findings;
};

/** Why a URL zoneform fetches itself is written as it is. */
const FETCHED_URL_TAKES_NO_ENV =
  "a payment page URL takes no ${env:…} value: zoneform fetches these URLs itself (audit -c, inventory " +
  "--headers), so a value put in would be sent to the host the URL names; write the URL as the browser requests it";

const pageHeaderEntries: Rule = (doc, ctx) => {
  const findings: Finding[] = [];
  for (const { zone, pointer } of zonesOf(doc)) {
    const inv = asRecord(asRecord(zone.page_shield)?.script_inventory);
    const headers = asRecord(inv?.headers);
    if (!inv || !headers) continue;
    const base = `${pointer}/page_shield/script_inventory/headers`;
    const patterns = asArray(inv.pages).flatMap((p) => (typeof p === "string" ? [p] : []));
    const seen = new Map<string, number>();
    for (const [i, u] of asArray(headers.urls).entries()) {
      const url = asString(u);
      if (url === undefined) continue;
      const at = childPointer(`${base}/urls`, i);
      const written = ctx.template(at);
      if (written !== undefined && hasEnvReference(written)) {
        findings.push({ pointer: at, message: FETCHED_URL_TAKES_NO_ENV });
        continue;
      }
      const problem = pageUrlProblem(url);
      if (problem) {
        findings.push({ pointer: at, message: problem });
        continue;
      }
      const earlier = seen.get(url);
      if (earlier !== undefined)
        findings.push({
          pointer: at,
          severity: "warning",
          message: `duplicate page URL (also item ${earlier} of this list)`,
        });
      else seen.set(url, i);
      if (isInsecurePageUrl(url))
        findings.push({
          pointer: at,
          severity: "warning",
          message:
            `a payment page is served over https: audit does not fetch ${url} and reports it as an insecure ` +
            `page; write ${url.replace(/^http:/i, "https:")}`,
        });
      else if (patterns.length > 0 && !pageInScope(patterns, url))
        findings.push({
          pointer: at,
          severity: "warning",
          message: `${url} is none of the pages in scope (${patterns.join(", ")}): add its pattern to pages`,
        });
    }
    const pinned = asRecord(headers.pinned);
    if (!pinned) continue;
    const names = Object.keys(pinned);
    if (names.length === 0)
      findings.push({
        pointer: `${base}/pinned`,
        severity: "warning",
        message:
          "no header is pinned: audit only checks that the pages answer; pin what they send with zoneform " +
          "inventory --headers URL --merge FILE",
      });
    for (const name of names) {
      const at = childPointer(`${base}/pinned`, name);
      const nameProblem = headerNameProblem(name);
      if (nameProblem) findings.push({ pointer: at, at: "key", message: nameProblem });
      const value = asString(pinned[name]);
      if (value === undefined || ctx.template(at) !== undefined) continue;
      const valueProblem = headerValueProblem(value);
      if (valueProblem) findings.push({ pointer: at, message: valueProblem });
    }
  }
  return findings;
};

function* stringsIn(value: unknown, pointer: string): Generator<string> {
  if (typeof value === "string") yield pointer;
  else if (Array.isArray(value)) for (const [i, v] of value.entries()) yield* stringsIn(v, childPointer(pointer, i));
  else if (asRecord(value))
    for (const [k, v] of Object.entries(value as Rec)) yield* stringsIn(v, childPointer(pointer, k));
}

/** The script inventory is checked by audit and written to no one. */
const literalInventory: Rule = literalOnly(function* (doc) {
  for (const { zone, pointer } of zonesOf(doc)) {
    const base = `${pointer}/page_shield/script_inventory`;
    for (const at of stringsIn(asRecord(zone.page_shield)?.script_inventory, base))
      if (!at.startsWith(`${base}/headers/urls/`))
        yield { pointer: at, what: "the script inventory (checked by audit)" };
  }
});

export const PAGE_SHIELD_RULES: readonly Rule[] = [
  literalInventory,
  uniquePolicies,
  pruneNeedsPolicies,
  policyValues,
  scriptInventoryEntries,
  pageHeaderEntries,
];
