// SARIF 2.1.0 for `audit` and `inventory --format sarif`: one result per finding, a rule per kind, a
// location in the configuration file when one applies (else its line 1) plus the zone as a logical
// location, and a partial fingerprint code scanning tracks a finding by across runs. Pure: findings go
// in, the log object comes out; the commands write it.
//
// The fingerprint `zoneformFinding/v1` is sha256 over the rule id, the zone id and the subject's
// identity (Page Shield's item id, or the inventory entry's url): never over scores, dates, hashes or
// messages, which change from run to run while the finding stays the same.
import { createHash } from "node:crypto";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { printable, safeJson, sarifMessage } from "../safe-text.js";
import { INFORMATION_URI, RULE_KEYS, ruleId, sarifRules, type RuleKey, type SarifLevel } from "./rules.js";

const SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";
export const FINGERPRINT_KEY = "zoneformFinding/v1";

/** A place in a configuration file: `file` as shown in messages (relative to the working directory when inside it). */
export interface FilePosition {
  file: string;
  line: number;
  column?: number;
}

export interface ZoneName {
  id: string;
  /** The zone's name when known (the file's `name`, or the name given to --zone). */
  name?: string;
}

/** One finding, ready for SARIF. */
export interface SarifFinding {
  rule: RuleKey;
  level: SarifLevel;
  /**
   * Plain text; when the result is made, control, invisible and bidirectional characters are escaped
   * and brackets too, so that no text from the API forms an embedded link (`[text](url)`).
   */
  message: string;
  zone: ZoneName;
  /** What the finding is about, stably: Page Shield's item id, or an inventory entry's url. */
  subject: string;
  /** Where in the configuration, when anywhere. */
  where?: FilePosition;
  properties?: Record<string, unknown>;
}

export interface SarifResult {
  ruleId: string;
  ruleIndex: number;
  level: SarifLevel;
  message: { text: string };
  locations: Array<Record<string, unknown>>;
  partialFingerprints: Record<string, string>;
  properties?: Record<string, unknown>;
}

/** The stable fingerprint of a finding: rule, zone and subject, nothing that changes between runs. */
export function findingFingerprint(rule: RuleKey, zoneId: string, subject: string): string {
  return createHash("sha256")
    .update(`${ruleId(rule)}\n${zoneId}\n${subject}`, "utf8")
    .digest("hex");
}

/**
 * A file path as shown (relative to the working directory, or absolute) as a SARIF artifact URI: a
 * relative reference with `/` separators and each segment percent-encoded, or a file: URL.
 */
export function artifactUri(file: string): string {
  if (path.isAbsolute(file)) return pathToFileURL(file).href;
  return file
    .split(/[\\/]+/)
    .filter((s) => s !== "" && s !== ".")
    .map((s) => encodeURIComponent(s))
    .join("/");
}

export function sarifResult(f: SarifFinding): SarifResult {
  const logical = {
    name: printable(f.zone.name ?? f.zone.id),
    fullyQualifiedName: `zone/${printable(f.zone.id)}`,
    kind: "module",
  };
  const location: Record<string, unknown> = {};
  if (f.where) {
    location.physicalLocation = {
      artifactLocation: { uri: artifactUri(f.where.file) },
      region: {
        startLine: Math.max(1, f.where.line),
        ...(f.where.column ? { startColumn: Math.max(1, f.where.column) } : {}),
      },
    };
  }
  location.logicalLocations = [logical];
  return {
    ruleId: ruleId(f.rule),
    ruleIndex: RULE_KEYS.indexOf(f.rule),
    level: f.level,
    message: { text: sarifMessage(f.message) },
    locations: [location],
    partialFingerprints: { [FINGERPRINT_KEY]: findingFingerprint(f.rule, f.zone.id, f.subject) },
    ...(f.properties ? { properties: f.properties } : {}),
  };
}

export interface SarifLogOptions {
  /** zoneform's version (package.json's). */
  version: string;
  /** The code scanning category (runAutomationDetails.id is it with a `/` after), e.g. `zoneform/audit`. */
  category: string;
  results: SarifResult[];
  /** Run-level facts (filters, thresholds) for readers; not used by code scanning. */
  properties?: Record<string, unknown>;
  /** How the tool ran (its start, exit code, result), written before the results. */
  invocations?: Array<Record<string, unknown>>;
  /** The files the run read (the configuration), with their hashes. */
  artifacts?: Array<Record<string, unknown>>;
}

export function sarifLog(opts: SarifLogOptions): Record<string, unknown> {
  return {
    $schema: SARIF_SCHEMA,
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "zoneform",
            version: opts.version,
            semanticVersion: opts.version,
            informationUri: INFORMATION_URI,
            rules: sarifRules(),
          },
        },
        automationDetails: { id: `${opts.category.replace(/\/+$/, "")}/` },
        ...(opts.invocations ? { invocations: opts.invocations } : {}),
        ...(opts.artifacts ? { artifacts: opts.artifacts } : {}),
        columnKind: "utf16CodeUnits",
        results: opts.results,
        ...(opts.properties ? { properties: opts.properties } : {}),
      },
    ],
  };
}

/**
 * The log as the commands write it: indented JSON (invisible and bidirectional characters in its
 * strings written as JSON escapes, see safeJson) and a final newline.
 */
export function sarifText(log: Record<string, unknown>): string {
  return `${safeJson(log, 2)}\n`;
}

/** What is wrong with a --sarif-category value, or undefined. */
export function categoryProblem(category: string): string | undefined {
  if (category.trim() === "" || /^\/*$/.test(category))
    return "a category names the analysis, e.g. zoneform/audit/example.com";
  if (category.length > 200) return "at most 200 characters";
  if (printable(category) !== category || /\s/.test(category)) return "no spaces or control characters";
  return undefined;
}
