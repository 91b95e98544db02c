// The account's managed rulesets: OWASP Core and Cloudflare Managed.
// Spec: docs/emulator.md, The seed.
import { buildOwaspRules, deriveRuleId, OWASP_RULESET_ID } from "./owasp-rules.js";
import type { Rule, Ruleset } from "./state.js";

export const CLOUDFLARE_MANAGED_RULESET_ID = "efb7b8c949ac4650a09736fc376e9aee";
export const MANAGED_PHASE = "http_request_firewall_managed";

// [fixed id or undefined, description, action, enabled, tags]
const CF_MANAGED_RULES: ReadonlyArray<[string | undefined, string, string, boolean, string[]]> = [
  [
    undefined,
    "Apache Struts - Code Injection - CVE:CVE-2017-5638",
    "block",
    true,
    ["apache-struts", "cve-2017-5638", "rce"],
  ],
  [undefined, "Log4j Headers - CVE:CVE-2021-44228", "block", true, ["log4j", "cve-2021-44228", "rce"]],
  [undefined, "Log4j Body - CVE:CVE-2021-44228", "block", true, ["log4j", "cve-2021-44228", "rce"]],
  [undefined, "Log4j URL - CVE:CVE-2021-44228", "block", true, ["log4j", "cve-2021-44228", "rce"]],
  [undefined, "Spring - Code Injection - CVE:CVE-2022-22965", "block", true, ["spring", "cve-2022-22965", "rce"]],
  [
    undefined,
    "Atlassian Confluence - Code Injection - CVE:CVE-2022-26134",
    "block",
    true,
    ["atlassian", "confluence", "cve-2022-26134", "rce"],
  ],
  [undefined, "Citrix - Directory Traversal - CVE:CVE-2019-19781", "block", true, ["citrix", "cve-2019-19781", "lfi"]],
  [undefined, "F5 BIG-IP - Remote Code Execution - CVE:CVE-2020-5902", "block", true, ["f5", "cve-2020-5902", "rce"]],
  [
    undefined,
    "Microsoft Exchange - SSRF - CVE:CVE-2021-26855",
    "block",
    true,
    ["microsoft-exchange", "cve-2021-26855", "ssrf"],
  ],
  [
    undefined,
    "Oracle WebLogic - Remote Code Execution - CVE:CVE-2020-14882",
    "block",
    true,
    ["oracle-weblogic", "cve-2020-14882", "rce"],
  ],
  [undefined, "MOVEit Transfer - SQLi - CVE:CVE-2023-34362", "block", true, ["moveit", "cve-2023-34362", "sqli"]],
  [
    undefined,
    "Ivanti - Auth Bypass - CVE:CVE-2023-46805",
    "block",
    true,
    ["ivanti", "cve-2023-46805", "broken-access-control"],
  ],
  [undefined, "Drupal - Code Injection - CVE:CVE-2018-7600", "block", true, ["drupal", "cve-2018-7600", "rce"]],
  [undefined, "WordPress - Broken Access Control - XMLRPC", "block", true, ["wordpress", "broken-access-control"]],
  [undefined, "WordPress - Dangerous File Upload", "block", true, ["wordpress", "file-upload"]],
  [undefined, "Joomla - SQLi - Common Payloads", "block", true, ["joomla", "sqli"]],
  [undefined, "PHP - Code Injection", "block", true, ["php", "rce"]],
  [undefined, "Server-Side Includes - Command Injection", "block", true, ["ssi", "rce"]],
  [undefined, "SQLi - Sleep Function", "block", true, ["sqli"]],
  [undefined, "SQLi - Benchmark Function", "block", true, ["sqli"]],
  [undefined, "XSS - JavaScript Events", "block", true, ["xss"]],
  [undefined, "XSS - HTML Encoding", "block", true, ["xss"]],
  [undefined, "Anomaly:Header:User-Agent - Missing", "log", true, ["anomaly", "header"]],
  // The rule the unofficial migration example overrides; disabled by default like the real one.
  [
    "23ee7cebe6e8443e99ecf932ab579455",
    "Anomaly:Port - Non Standard Port (not 80 or 443)",
    "block",
    false,
    ["anomaly", "port"],
  ],
];

export function seedAccountRulesets(now: string): Ruleset[] {
  return [
    {
      id: CLOUDFLARE_MANAGED_RULESET_ID,
      name: "Cloudflare Managed Ruleset",
      description:
        "Created by the Cloudflare security team, this ruleset is designed to provide fast and effective " +
        "protection for all your applications. It is frequently updated to cover new vulnerabilities and " +
        "reduce false positives.",
      kind: "managed",
      phase: MANAGED_PHASE,
      source: "firewall_managed",
      version: "93",
      last_updated: now,
      rules: buildCloudflareManagedRules(now),
    },
    {
      id: OWASP_RULESET_ID,
      name: "Cloudflare OWASP Core Ruleset",
      description:
        "Cloudflare's implementation of the Open Web Application Security Project (OWASP) ModSecurity Core " +
        "Rule Set. We routinely monitor for updates from OWASP based on the latest version available from " +
        "the official code repository",
      kind: "managed",
      phase: MANAGED_PHASE,
      source: "firewall_managed",
      version: "43",
      last_updated: now,
      rules: buildOwaspRules(now),
    },
  ];
}

function buildCloudflareManagedRules(now: string): Rule[] {
  return CF_MANAGED_RULES.map(([fixedId, description, action, enabled, tags]): Rule => {
    const id = fixedId ?? deriveRuleId("cf-managed", description);
    return {
      id,
      version: "1",
      action,
      categories: [...tags].sort(),
      description,
      enabled,
      expression: "true",
      last_updated: now,
      ref: id,
    };
  });
}
