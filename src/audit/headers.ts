// The payment pages' security headers checked against `script_inventory.headers` (PCI DSS v4.0.1
// 11.6.1: a change- and tamper-detection mechanism for the security-impacting HTTP headers of the
// payment pages as the consumer's browser receives them). Pure: the declaration, the zone's Page Shield
// policies and what each page answered (src/inventory/page-fetch.ts) go in; one row per page and the
// findings come out. A pin of a session or credential header (isSessionHeader: validate refuses one) is
// never compared, so that nothing of it is shown.
//
// - changed header (11.6.1, high): a pinned header the page sends with another value (compared
//   exactly, after the HTTP layer's trimming; several instances joined with ", ", as the fetch API does);
// - missing header (11.6.1, high): a pinned header the page does not send;
// - page unreachable (11.6.1, high): no headers to check (no answer in time, headers too large, not
//   valid HTTP, a redirect to another origin, an address that is not public, a status other than 2xx);
// - insecure page (11.6.1, high): a page URL on plain http:// (but to a loopback host when private
//   addresses are allowed), not fetched;
// - policy not applied (11.6.1, medium): an enabled `allow` (or `log`) policy of the zone whose
//   expression selects the page, or cannot be told not to (src/audit/expression.ts), and whose CSP
//   does not show in the page's content-security-policy (content-security-policy-report-only) header.
import { createHash } from "node:crypto";
import { getOwn } from "../data-record.js";
import type { PageFetch, PageFetchProblem } from "../inventory/index.js";
import { type DesiredPageHeaders, type DesiredPolicy, isSessionHeader } from "../sections/index.js";
import { expressionSelects } from "./expression.js";

type HeaderFindingType =
  | "changed-header"
  | "missing-header"
  | "page-unreachable"
  | "insecure-page"
  | "policy-not-applied";

const HEADER_REQUIREMENT = "11.6.1";

/** A value the page sent is kept to this many characters in a finding (`seen_length` and `seen_sha256` then). */
export const MAX_SEEN_CHARS = 4096;

/** The header a policy's CSP comes in, by its action. */
const POLICY_HEADER: Partial<Record<DesiredPolicy["action"], string>> = {
  allow: "content-security-policy",
  log: "content-security-policy-report-only",
};

interface PolicyRef {
  description: string;
  id?: string;
  action: DesiredPolicy["action"];
  /** Its place in the zone's policies list. */
  index: number;
  /** The header its CSP was looked for in. */
  header: string;
  /** Whether its expression selects the page: true, or "unknown" (it cannot be told from the URL). */
  selects: true | "unknown";
}

export interface HeaderFinding {
  type: HeaderFindingType;
  severity: "high" | "medium";
  /** The page URL as the file gives it. */
  url: string;
  header?: string;
  pinned?: string;
  /** What the page sent, cut to MAX_SEEN_CHARS. */
  seen?: string;
  /** When `seen` is cut: the whole value's length and sha256. */
  seen_length?: number;
  seen_sha256?: string;
  /** The URL that answered, after same-origin redirects. */
  final_url?: string;
  status?: number;
  /** Why a page could not be checked (page unreachable). */
  problem?: PageFetchProblem;
  /** A redirect's target, when the fetch ended at one. */
  location?: string;
  policy?: PolicyRef;
  requirement: string;
  message: string;
}

type PageResult = "ok" | "findings" | "unreachable" | "insecure";

/** One page as the evidence report lists it. */
interface HeaderPageRow {
  url: string;
  final_url?: string;
  status?: number;
  /** The pinned headers compared on it (all of them, unless it could not be checked). */
  headers_checked: string[];
  result: PageResult;
  /** One line: `as pinned`, `1 changed, 1 missing`, `unreachable: …`. */
  summary: string;
}

export interface HeaderCheck {
  /** The pinned headers' names, in the file's order. */
  pinned: string[];
  /** The per-page fetch bound used, in milliseconds. */
  timeout_ms: number;
  pages: HeaderPageRow[];
  findings: HeaderFinding[];
}

function short(text: string, max = 200): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function seenFields(value: string): Pick<HeaderFinding, "seen" | "seen_length" | "seen_sha256"> {
  if (value.length <= MAX_SEEN_CHARS) return { seen: value };
  return {
    seen: `${value.slice(0, MAX_SEEN_CHARS - 1)}…`,
    seen_length: value.length,
    seen_sha256: createHash("sha256").update(value, "latin1").digest("hex"),
  };
}

/** A CSP header's policies (split at `,`), each as its directives, whitespace collapsed, names lower-cased. */
function cspPolicies(header: string): Array<Set<string>> {
  return header.split(",").map((policy) => new Set(cspDirectives(policy)));
}

function cspDirectives(policy: string): string[] {
  return policy
    .split(";")
    .map((d) => d.trim().replace(/\s+/g, " "))
    .filter((d) => d !== "")
    .map((d) => {
      const space = d.indexOf(" ");
      return space < 0 ? d.toLowerCase() : `${d.slice(0, space).toLowerCase()}${d.slice(space)}`;
    });
}

/**
 * Whether a policy's CSP `value` shows in a page's header: one of the header's policies holds each of
 * its directives (Cloudflare may add reporting directives, and the origin its own policy, besides).
 */
export function policyShows(value: string, header: string | undefined): boolean {
  if (header === undefined) return false;
  const wanted = cspDirectives(value);
  if (wanted.length === 0) return true;
  return cspPolicies(header).some((p) => wanted.every((d) => p.has(d)));
}

function quoted(text: string): string {
  return JSON.stringify(short(text));
}

/** Checks each page's answer against the pins and the zone's policies. */
export function checkPageHeaders(
  declared: DesiredPageHeaders,
  answers: ReadonlyMap<string, PageFetch>,
  opts: { policies?: readonly DesiredPolicy[]; timeoutMs: number },
): HeaderCheck {
  const pinned = Object.keys(declared.pinned).filter((name) => !isSessionHeader(name));
  const pages: HeaderPageRow[] = [];
  const findings: HeaderFinding[] = [];
  for (const url of [...new Set(declared.urls)]) {
    const answer = answers.get(url);
    if (!answer?.ok) {
      const insecure = answer?.problem === "insecure";
      const reason = answer?.reason ?? "not fetched";
      findings.push({
        type: insecure ? "insecure-page" : "page-unreachable",
        severity: "high",
        url,
        ...(answer?.status !== undefined ? { status: answer.status } : {}),
        ...(answer ? { problem: answer.problem } : {}),
        ...(answer?.location !== undefined ? { location: answer.location } : {}),
        requirement: HEADER_REQUIREMENT,
        message: insecure
          ? `insecure payment page ${url}: served over plain http, not fetched; serve it over https and pin ` +
            "the headers it sends there"
          : `page unreachable ${url}: ${reason}; its headers could not be checked`,
      });
      pages.push({
        url,
        ...(answer?.status !== undefined ? { status: answer.status } : {}),
        headers_checked: [],
        result: insecure ? "insecure" : "unreachable",
        summary: insecure ? "insecure: plain http, not fetched" : `unreachable: ${reason}`,
      });
      continue;
    }
    const at = {
      ...(answer.final_url !== url ? { final_url: answer.final_url } : {}),
      status: answer.status,
    };
    let changed = 0;
    let missing = 0;
    for (const name of pinned) {
      const want = getOwn(declared.pinned, name)!;
      const got = getOwn(answer.headers, name);
      if (got === want) continue;
      if (got === undefined) {
        missing++;
        findings.push({
          type: "missing-header",
          severity: "high",
          url,
          header: name,
          pinned: want,
          ...at,
          requirement: HEADER_REQUIREMENT,
          message: `missing header ${name} on ${url}: pinned ${quoted(want)}, the page does not send it`,
        });
        continue;
      }
      changed++;
      findings.push({
        type: "changed-header",
        severity: "high",
        url,
        header: name,
        pinned: want,
        ...seenFields(got),
        ...at,
        requirement: HEADER_REQUIREMENT,
        message: `changed header ${name} on ${url}: pinned ${quoted(want)}, the page sends ${quoted(got)}`,
      });
    }
    let notApplied = 0;
    (opts.policies ?? []).forEach((policy, index) => {
      const header = POLICY_HEADER[policy.action];
      if (!policy.enabled || header === undefined) return;
      const selects = expressionSelects(policy.expression, answer.final_url);
      if (selects === false || policyShows(policy.value, getOwn(answer.headers, header))) return;
      notApplied++;
      const got = getOwn(answer.headers, header);
      findings.push({
        type: "policy-not-applied",
        severity: "medium",
        url,
        header,
        pinned: policy.value,
        ...(got !== undefined ? seenFields(got) : {}),
        ...at,
        policy: {
          description: policy.description,
          ...(policy.id !== undefined ? { id: policy.id } : {}),
          action: policy.action,
          index,
          header,
          selects: selects === true ? true : "unknown",
        },
        requirement: HEADER_REQUIREMENT,
        message:
          `policy not applied on ${url}: the Page Shield policy ${quoted(policy.description)} (${policy.action}) ` +
          `adds ${quoted(policy.value)}, which is not in the ${header} the page sends` +
          `${got === undefined ? " (it sends none)" : ""}; ` +
          (selects === true
            ? "its expression selects the page"
            : "whether its expression selects the page cannot be told from the URL"),
      });
    });
    const parts = [
      ...(changed ? [`${changed} changed`] : []),
      ...(missing ? [`${missing} missing`] : []),
      ...(notApplied ? [`${notApplied} polic${notApplied === 1 ? "y" : "ies"} not applied`] : []),
    ];
    pages.push({
      url,
      ...at,
      headers_checked: pinned,
      result: parts.length === 0 ? "ok" : "findings",
      summary:
        parts.length === 0 ? (pinned.length === 0 ? "answered (nothing pinned)" : "as pinned") : parts.join(", "),
    });
  }
  return { pinned, timeout_ms: opts.timeoutMs, pages, findings };
}
