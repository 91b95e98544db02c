// SARIF 2.1.0 for `audit` and `inventory --format sarif`: one result per finding, a rule per kind.
// Pure. Spec: docs/commands/audit.md#sarif. The fingerprint covers rule, zone and subject only, never
// scores, dates or messages, which change from run to run while the finding stays the same.
import { createHash } from "node:crypto";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { printable, safeJson, sarifMessage } from "../safe-text.js";
import { INFORMATION_URI, RULE_KEYS, ruleId, sarifRules, type RuleKey, type SarifLevel } from "./rules.js";

const SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";
export const FINGERPRINT_KEY = "zoneformFinding/v1";

export interface FilePosition {
  file: string;
  line: number;
  column?: number;
}

export interface ZoneName {
  id: string;
  name?: string;
}

export interface SarifFinding {
  rule: RuleKey;
  level: SarifLevel;
  /** Plain text: control, invisible and bidi characters and brackets are escaped (no embedded links). */
  message: string;
  zone: ZoneName;
  subject: string;
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

export function findingFingerprint(rule: RuleKey, zoneId: string, subject: string): string {
  return createHash("sha256")
    .update(`${ruleId(rule)}\n${zoneId}\n${subject}`, "utf8")
    .digest("hex");
}

/** A file path as shown as a SARIF artifact URI: a relative reference, percent-encoded, or a file: URL. */
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
  version: string;
  category: string;
  results: SarifResult[];
  properties?: Record<string, unknown>;
  invocations?: Array<Record<string, unknown>>;
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

export function sarifText(log: Record<string, unknown>): string {
  return `${safeJson(log, 2)}\n`;
}

export function categoryProblem(category: string): string | undefined {
  if (category.trim() === "" || /^\/*$/.test(category))
    return "a category names the analysis, e.g. zoneform/audit/example.com";
  if (category.length > 200) return "at most 200 characters";
  if (printable(category) !== category || /\s/.test(category)) return "no spaces or control characters";
  return undefined;
}
