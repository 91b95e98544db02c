// The emulator's copy of the Cloudflare OWASP Core Ruleset (CRS 3.x based).
import { createHash } from "node:crypto";
import type { Rule } from "./state.js";

export const OWASP_RULESET_ID = "4814384a9e5d4991b9815dcfc25d2f1f";
/** "949110: Inbound Anomaly Score Exceeded", the rule that turns the summed score into an action. */
export const OWASP_THRESHOLD_RULE_ID = "6179ae15870a4bb7b2d480d4843b323c";
const OWASP_DEFAULT_THRESHOLD = 40;
/** Actions Cloudflare accepts when overriding a rule of the OWASP ruleset. */
export const OWASP_OVERRIDE_ACTIONS = ["block", "managed_challenge", "js_challenge", "log", "challenge"] as const;

type Severity = "critical" | "error" | "warning";

// [CRS id, description, paranoia level, severity, extra tags]
const CRS_RULES: ReadonlyArray<[number, string, 1 | 2 | 3 | 4, Severity, string[]]> = [
  [911100, "Method is not allowed by policy", 1, "critical", ["attack-generic", "platform-multi"]],
  [920100, "Invalid HTTP Request Line", 1, "warning", ["attack-protocol", "platform-multi"]],
  [920120, "Attempted multipart/form-data bypass", 1, "critical", ["attack-protocol", "platform-multi"]],
  [920160, "Content-Length HTTP header is not numeric", 1, "critical", ["attack-protocol", "platform-multi"]],
  [920170, "GET or HEAD Request with Body Content", 1, "critical", ["attack-protocol", "platform-multi"]],
  [920180, "POST without Content-Length or Transfer-Encoding headers", 1, "warning", ["attack-protocol"]],
  [920270, "Invalid character in request (null character)", 1, "error", ["attack-protocol"]],
  [920280, "Request Missing a Host Header", 1, "warning", ["attack-protocol"]],
  [920350, "Host header is a numeric IP address", 1, "warning", ["attack-protocol"]],
  [920420, "Request content type is not allowed by policy", 1, "critical", ["attack-protocol"]],
  [921110, "HTTP Request Smuggling Attack", 1, "critical", ["attack-protocol", "language-multi"]],
  [921130, "HTTP Response Splitting Attack", 1, "critical", ["attack-protocol", "language-multi"]],
  [930100, "Path Traversal Attack (/../) or (/.../)", 1, "critical", ["attack-lfi", "platform-multi"]],
  [930110, "Path Traversal Attack (/../) or (/.../)", 1, "critical", ["attack-lfi", "platform-multi"]],
  [930120, "OS File Access Attempt", 1, "critical", ["attack-lfi", "platform-multi"]],
  [
    931100,
    "Possible Remote File Inclusion (RFI) Attack: URL Parameter using IP Address",
    1,
    "critical",
    ["attack-rfi"],
  ],
  [
    932100,
    "Remote Command Execution: Unix Command Injection",
    1,
    "critical",
    ["attack-rce", "platform-unix", "language-shell"],
  ],
  [
    932110,
    "Remote Command Execution: Windows Command Injection",
    1,
    "critical",
    ["attack-rce", "platform-windows", "language-shell"],
  ],
  [
    932160,
    "Remote Command Execution: Unix Shell Code Found",
    1,
    "critical",
    ["attack-rce", "platform-unix", "language-shell"],
  ],
  [933100, "PHP Injection Attack: PHP Open Tag Found", 1, "critical", ["attack-injection-php", "language-php"]],
  [
    933160,
    "PHP Injection Attack: High-Risk PHP Function Call Found",
    1,
    "critical",
    ["attack-injection-php", "language-php"],
  ],
  [941100, "XSS Attack Detected via libinjection", 1, "critical", ["attack-xss", "language-multi"]],
  [941110, "XSS Filter - Category 1: Script Tag Vector", 1, "critical", ["attack-xss", "language-multi"]],
  [941160, "NoScript XSS InjectionChecker: HTML Injection", 1, "critical", ["attack-xss", "language-multi"]],
  [942100, "SQL Injection Attack Detected via libinjection", 1, "critical", ["attack-sqli", "language-multi"]],
  [942140, "SQL Injection Attack: Common DB Names Detected", 1, "critical", ["attack-sqli", "language-multi"]],
  [
    942190,
    "Detects MSSQL code execution and information gathering attempts",
    1,
    "critical",
    ["attack-sqli", "platform-mssql"],
  ],
  [943100, "Possible Session Fixation Attack: Setting Cookie Values in HTML", 1, "critical", ["attack-fixation"]],
  [944100, "Remote Command Execution: Suspicious Java class detected", 1, "critical", ["attack-rce", "language-java"]],
  [920300, "Request Missing an Accept Header", 2, "warning", ["attack-protocol"]],
  [920320, "Missing User Agent Header", 2, "warning", ["attack-protocol"]],
  [921150, "HTTP Header Injection Attack via payload (CR/LF detected)", 2, "critical", ["attack-protocol"]],
  [932200, "RCE Bypass Technique", 2, "critical", ["attack-rce", "platform-unix"]],
  [941320, "Possible XSS Attack Detected - HTML Tag Handler", 2, "critical", ["attack-xss"]],
  [942120, "SQL Injection Attack: SQL Operator Detected", 2, "critical", ["attack-sqli"]],
  [
    942200,
    "Detects MySQL comment-/space-obfuscated injections and backtick termination",
    2,
    "critical",
    ["attack-sqli", "platform-mysql"],
  ],
  [
    942430,
    "Restricted SQL Character Anomaly Detection (args): # of special characters exceeded (12)",
    2,
    "warning",
    ["attack-sqli"],
  ],
  [
    920272,
    "Invalid character in request (outside of printable chars below ascii 127)",
    3,
    "error",
    ["attack-protocol"],
  ],
  [921170, "HTTP Parameter Pollution", 3, "warning", ["attack-protocol"]],
  [942251, "Detects HAVING injections", 3, "critical", ["attack-sqli"]],
  [
    942431,
    "Restricted SQL Character Anomaly Detection (args): # of special characters exceeded (6)",
    3,
    "warning",
    ["attack-sqli"],
  ],
  [920202, "Range: Too many fields for pdf request (35 or more)", 4, "warning", ["attack-protocol"]],
  [920460, "Abnormal Escape Characters", 4, "critical", ["attack-protocol"]],
  [
    942421,
    "Restricted SQL Character Anomaly Detection (cookies): # of special characters exceeded (3)",
    4,
    "warning",
    ["attack-sqli"],
  ],
  [
    942432,
    "Restricted SQL Character Anomaly Detection (args): # of special characters exceeded (2)",
    4,
    "warning",
    ["attack-sqli"],
  ],
];

// CRS anomaly scoring: each matching rule adds its severity's increment to the request's score.
const INCREMENT: Record<Severity, number> = { critical: 5, error: 4, warning: 3 };

/** Builds the OWASP ruleset's rules; the threshold rule 949110 is last, as in the real ruleset. */
export function buildOwaspRules(now: string): Rule[] {
  const scoring = CRS_RULES.map(([crs, text, level, severity, tags]): Rule => {
    const id = deriveRuleId("owasp-crs", String(crs));
    return {
      id,
      version: "1",
      action: "score",
      action_parameters: { increment: INCREMENT[severity] },
      categories: [...tags, `paranoia-level-${level}`].sort(),
      description: `${crs}: ${text}`,
      enabled: true,
      expression: "true",
      last_updated: now,
      ref: id,
    };
  });
  const threshold: Rule = {
    id: OWASP_THRESHOLD_RULE_ID,
    version: "1",
    action: "block",
    categories: ["anomaly-score"],
    description: "949110: Inbound Anomaly Score Exceeded",
    enabled: true,
    expression: "true",
    last_updated: now,
    ref: OWASP_THRESHOLD_RULE_ID,
    score_threshold: OWASP_DEFAULT_THRESHOLD,
  };
  return [...scoring, threshold];
}

export function deriveRuleId(namespace: string, key: string): string {
  return createHash("md5").update(`${namespace}:${key}`).digest("hex");
}
