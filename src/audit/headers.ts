// The payment pages' security headers checked against `script_inventory.headers` (PCI DSS v4.0.1
// 11.6.1: a change- and tamper-detection mechanism for the security-impacting HTTP headers of the
// payment pages as the consumer's browser receives them). Pure: the declaration, the zone's Page Shield
// policies and what each page answered (src/inventory/page-fetch.ts) go in; one row per page and the
// findings come out. A pin of a session or credential header (isSessionHeader: validate refuses one) is
// never compared, so that nothing of it is shown.
//
// - changed header (11.6.1, high): a pinned header the page sends with another value (compared
//   exactly, after the HTTP layer's trimming; several instances joined with ", ", as the fetch API does),
//   but content-security-policy, whose pin a CSP at least as strict meets (csp-model.ts);
// - missing header (11.6.1, high): a pinned header the page does not send;
// - page unreachable (11.6.1, high): no headers to check (no answer in time, headers too large, not
//   valid HTTP, a redirect to another origin, an address that is not public, a status other than 2xx);
// - insecure page (11.6.1, high): a page URL on plain http:// (but to a loopback host when private
//   addresses are allowed), not fetched;
// - policy not applied (11.6.1, medium): an enabled `allow` (or `log`) policy of the zone whose
//   expression selects the page, or cannot be told not to (src/audit/expression.ts), and than whose CSP
//   the page's content-security-policy (content-security-policy-report-only) is not at least as strict.
import { createHash } from "node:crypto";
import { getOwn } from "../data-record.js";
import type { PageFailure, PageFetch, PageFetchProblem } from "../inventory/index.js";
import {
  type CspJudgement,
  cspAtLeastAsStrict,
  type DesiredPageHeaders,
  type DesiredPolicy,
  isSessionHeader,
} from "../sections/index.js";
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

/** The one pin judged by its effect (src/sections/page_shield/csp-model.ts); every other pin is compared exactly. */
const CSP_HEADER = "content-security-policy";

/** Reasons shown in one message. */
const MAX_REASONS = 3;

/**
 * Whether a policy's CSP `value` is applied on a page: the page's `header` (the CSP it sends, all its
 * policies) is at least as strict, read against the page's URL (src/sections/page_shield/csp-model.ts).
 */
export function policyApplied(value: string, header: string | undefined, pageUrl: string): CspJudgement {
  return cspAtLeastAsStrict(header, value, pageUrl);
}

function quoted(text: string): string {
  return JSON.stringify(short(text));
}

function because(judgement: CspJudgement): string {
  const shown = judgement.reasons.slice(0, MAX_REASONS).join("; ");
  const more = judgement.reasons.length - MAX_REASONS;
  return more > 0 ? `${shown}; and ${more} more` : shown;
}

type PageAt = Pick<HeaderFinding, "final_url" | "status">;

/** The finding of one pin on a page that answered, if it is not met. */
function pinFinding(url: string, name: string, want: string, got: string | undefined, at: PageAt, pageUrl: string) {
  if (got === want) return undefined;
  const base = { severity: "high" as const, url, header: name, pinned: want, ...at, requirement: HEADER_REQUIREMENT };
  if (got === undefined)
    return {
      ...base,
      type: "missing-header" as const,
      message: `missing header ${name} on ${url}: pinned ${quoted(want)}, the page does not send it`,
    };
  // A CSP at least as strict as the pinned one meets the pin.
  const judgement = name === CSP_HEADER ? cspAtLeastAsStrict(got, want, pageUrl) : undefined;
  if (judgement?.meets) return undefined;
  const weaker = judgement ? `, which is not at least as strict (${because(judgement)})` : "";
  return {
    ...base,
    type: "changed-header" as const,
    ...seenFields(got),
    message: `changed header ${name} on ${url}: pinned ${quoted(want)}, the page sends ${quoted(got)}${weaker}`,
  };
}

/** The finding of one policy on a page that answered, if it selects the page and is not applied. */
function policyFinding(
  policy: DesiredPolicy,
  index: number,
  page: { url: string; answer: Exclude<PageFetch, PageFailure>; at: PageAt },
): HeaderFinding | undefined {
  const header = POLICY_HEADER[policy.action];
  if (!policy.enabled || header === undefined) return undefined;
  const { url, answer, at } = page;
  const selects = expressionSelects(policy.expression, answer.final_url);
  const got = getOwn(answer.headers, header);
  if (selects === false) return undefined;
  const judgement = policyApplied(policy.value, got, answer.final_url);
  if (judgement.meets) return undefined;
  const reportOnly = header === CSP_HEADER && getOwn(answer.headers, POLICY_HEADER.log!) !== undefined;
  const sent =
    got === undefined
      ? ` (it sends none${reportOnly ? `; a ${POLICY_HEADER.log} enforces nothing` : ""})`
      : `: ${because(judgement)}`;
  return {
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
      `adds ${quoted(policy.value)}, and the ${header} the page sends is not at least as strict${sent}; ` +
      (selects === true
        ? "its expression selects the page"
        : "whether its expression selects the page cannot be told from the URL"),
  };
}

/** The row and finding of a page with no headers to check. */
function unreachable(url: string, answer: PageFailure | undefined): { row: HeaderPageRow; finding: HeaderFinding } {
  const insecure = answer?.problem === "insecure";
  const reason = answer?.reason ?? "not fetched";
  const status = answer?.status !== undefined ? { status: answer.status } : {};
  return {
    finding: {
      type: insecure ? "insecure-page" : "page-unreachable",
      severity: "high",
      url,
      ...status,
      ...(answer ? { problem: answer.problem } : {}),
      ...(answer?.location !== undefined ? { location: answer.location } : {}),
      requirement: HEADER_REQUIREMENT,
      message: insecure
        ? `insecure payment page ${url}: served over plain http, not fetched; serve it over https and pin ` +
          "the headers it sends there"
        : `page unreachable ${url}: ${reason}; its headers could not be checked`,
    },
    row: {
      url,
      ...status,
      headers_checked: [],
      result: insecure ? "insecure" : "unreachable",
      summary: insecure ? "insecure: plain http, not fetched" : `unreachable: ${reason}`,
    },
  };
}

function pageSummary(findings: readonly HeaderFinding[], pinned: readonly string[]): string {
  const count = (type: HeaderFindingType) => findings.filter((f) => f.type === type).length;
  const [changed, missing, notApplied] = [
    count("changed-header"),
    count("missing-header"),
    count("policy-not-applied"),
  ];
  const parts = [
    ...(changed ? [`${changed} changed`] : []),
    ...(missing ? [`${missing} missing`] : []),
    ...(notApplied ? [`${notApplied} polic${notApplied === 1 ? "y" : "ies"} not applied`] : []),
  ];
  if (parts.length > 0) return parts.join(", ");
  return pinned.length === 0 ? "answered (nothing pinned)" : "as pinned";
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
      const { row, finding } = unreachable(url, answer);
      findings.push(finding);
      pages.push(row);
      continue;
    }
    const at = { ...(answer.final_url !== url ? { final_url: answer.final_url } : {}), status: answer.status };
    const own: HeaderFinding[] = [];
    for (const name of pinned) {
      const want = getOwn(declared.pinned, name)!;
      const f = pinFinding(url, name, want, getOwn(answer.headers, name), at, answer.final_url);
      if (f) own.push(f);
    }
    (opts.policies ?? []).forEach((policy, index) => {
      const f = policyFinding(policy, index, { url, answer, at });
      if (f) own.push(f);
    });
    findings.push(...own);
    pages.push({
      url,
      ...at,
      headers_checked: pinned,
      result: own.length === 0 ? "ok" : "findings",
      summary: pageSummary(own, pinned),
    });
  }
  return { pinned, timeout_ms: opts.timeoutMs, pages, findings };
}
