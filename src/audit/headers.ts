// The payment pages' security headers checked against `script_inventory.headers` (PCI DSS 11.6.1).
// Pure: the declaration, the zone's policies and each page's answer go in; rows and findings come out.
// Spec: docs/commands/audit.md, "Payment page headers". A session header pin is never compared.
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

const POLICY_HEADER: Partial<Record<DesiredPolicy["action"], string>> = {
  allow: "content-security-policy",
  log: "content-security-policy-report-only",
};

interface PolicyRef {
  description: string;
  id?: string;
  action: DesiredPolicy["action"];
  index: number;
  header: string;
  /** Whether its expression selects the page: true, or "unknown" (it cannot be told from the URL). */
  selects: true | "unknown";
}

export interface HeaderFinding {
  type: HeaderFindingType;
  severity: "high" | "medium";
  url: string;
  header?: string;
  pinned?: string;
  seen?: string;
  /** When `seen` is cut: the whole value's length and sha256. */
  seen_length?: number;
  seen_sha256?: string;
  final_url?: string;
  status?: number;
  problem?: PageFetchProblem;
  location?: string;
  policy?: PolicyRef;
  requirement: string;
  message: string;
}

type PageResult = "ok" | "findings" | "unreachable" | "insecure";

interface HeaderPageRow {
  url: string;
  final_url?: string;
  status?: number;
  headers_checked: string[];
  result: PageResult;
  /** One line: `as pinned`, `1 changed, 1 missing`, `unreachable: …`. */
  summary: string;
}

export interface HeaderCheck {
  pinned: string[];
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

const CSP_HEADER = "content-security-policy";

const MAX_REASONS = 3;

/** Whether the page's own CSP is at least as strict as the policy's, read against the page's URL. */
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
