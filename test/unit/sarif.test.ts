// The SARIF builder on findings: valid against the official SARIF 2.1.0 schemas, a rule per kind, levels
// from severities, locations in the configuration (the zone, the inventory's list, the authorized entry)
// or line 1 and the zone as a logical location, and fingerprints that stay the same when scores, dates,
// hashes and messages change between runs.
import { describe, expect, it } from "vitest";
import { classifyConnection, classifyCookie, classifyScript, type Finding } from "../../src/inventory/classify.js";
import { SarifAuditRenderer } from "../../src/audit/sarif.js";
import type { AuditTotals } from "../../src/audit/renderers.js";
import { checkInventory, type SeenScript } from "../../src/inventory/check.js";
import { inventorySarif } from "../../src/sarif/inventory.js";
import { configPositions } from "../../src/sarif/locate.js";
import { artifactUri, FINGERPRINT_KEY, findingFingerprint, sarifLog, sarifResult } from "../../src/sarif/log.js";
import { RULE_KEYS, sarifRules } from "../../src/sarif/rules.js";
import { sarifSchemaErrors } from "../helpers/sarif.js";

const Z = "0123456789abcdef0123456789abcdef";
const OTHER = "fedcba9876543210fedcba9876543210";
const NOW = new Date("2026-11-25T12:00:00Z");
const TOTALS: AuditTotals = {
  findings: 0,
  malicious_scripts: 0,
  malicious_connections: 0,
  insecure_cookies: 0,
  lookalike_hosts: 0,
  high: 0,
  medium: 0,
  low: 0,
};

const CONFIG = [
  "version: 1", // 1
  "zones:", // 2
  `  - zone_id: ${Z}`, // 3
  "    name: pay.example", // 4
  "    page_shield:", // 5
  "      script_inventory:", // 6
  '        pages: ["pay.example/checkout*"]', // 7
  "        authorized:", // 8
  "          - url: https://js.stripe.com/v3/*", // 9
  "            justification: Stripe card form", // 10
  "            owner: payments", // 11
  "          - url: https://cdn.pay.example/app.js", // 12
  "            justification: our checkout", // 13
  "            owner: payments", // 14
  `            hash: ${"a".repeat(64)}`, // 15
  "          - url: https://old.example/gone.js", // 16
  "            justification: retired widget", // 17
  "            owner: payments", // 18
  "",
].join("\n");

const SOURCES = [{ file: "config/zoneform.yaml", text: CONFIG }];

function script(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: "6d033a5483264f7a5d1764e765bac66a",
    url: "https://js.stripe.com/v3/skim.js",
    host: "pay.example",
    status: "active",
    js_integrity_score: 4,
    magecart_score: 80,
    first_page_url: "pay.example/checkout",
    last_seen_at: "2026-11-20T00:00:00Z",
    ...over,
  };
}

function audit(findings: Array<[string, Finding]>, opts: { positions?: boolean } = {}): any {
  let out = "";
  const r = new SarifAuditRenderer((t) => (out += t), {
    version: "0.1.0",
    zoneNames: new Map([[Z, "pay.example"]]),
    ...(opts.positions === false ? {} : { positions: configPositions(SOURCES) }),
  });
  r.begin();
  for (const [zone, f] of findings) r.finding(zone, f);
  r.end(TOTALS);
  return JSON.parse(out);
}

describe("SARIF from audit findings", () => {
  const malicious = classifyScript(script())!;
  const connection = classifyConnection({
    id: "c0ffee00c0ffee00c0ffee00c0ffee00",
    url: "https://collect.evil.example/c",
    host: "pay.example",
    domain_reported_malicious: true,
    malicious_domain_categories: ["Command and Control"],
  })!;
  const cookieMedium = classifyCookie({
    id: "c00c1e00c00c1e00c00c1e00c00c1e00",
    name: "__Session",
    host: "pay.example",
    secure_attribute: false,
    http_only_attribute: false,
    same_site_attribute: "none",
  })!;
  const cookieLow = classifyCookie({
    id: "c00c1e11c00c1e11c00c1e11c00c1e11",
    name: "_ga",
    host: "pay.example",
    secure_attribute: true,
    http_only_attribute: false,
  })!;

  it("is valid SARIF 2.1.0 with every rule, the tool, the category and one result per finding", () => {
    const log = audit([
      [Z, malicious],
      [Z, connection],
      [Z, cookieMedium],
      [OTHER, cookieLow],
    ]);
    expect(sarifSchemaErrors(log)).toEqual([]);
    expect(log.version).toBe("2.1.0");
    expect(log.$schema).toMatch(/sarif-schema-2\.1\.0\.json$/);
    const run = log.runs[0];
    expect(run.tool.driver).toMatchObject({
      name: "zoneform",
      version: "0.1.0",
      informationUri: "https://github.com/zoneform/zoneform",
    });
    expect(run.tool.driver.rules.map((r: { id: string }) => r.id)).toEqual([
      "zoneform/malicious-script",
      "zoneform/malicious-connection",
      "zoneform/insecure-cookie",
      "zoneform/unauthorized-script",
      "zoneform/changed-script",
      "zoneform/stale-authorization",
      "zoneform/lookalike-host",
      "zoneform/changed-header",
      "zoneform/missing-header",
      "zoneform/page-unreachable",
      "zoneform/insecure-page",
      "zoneform/policy-not-applied",
      "zoneform/no-alerting",
      "zoneform/alerting-unread",
    ]);
    for (const rule of run.tool.driver.rules) {
      expect(rule.shortDescription.text).not.toBe("");
      expect(rule.fullDescription.text).not.toBe("");
      expect(rule.helpUri).toBe("https://github.com/zoneform/zoneform/blob/main/docs/commands/audit.md#sarif");
      expect(["error", "warning", "note"]).toContain(rule.defaultConfiguration.level);
    }
    expect(run.automationDetails).toEqual({ id: "zoneform/audit/" });
    expect(run.results.map((r: any) => [r.ruleId, r.level, run.tool.driver.rules[r.ruleIndex].id])).toEqual([
      ["zoneform/malicious-script", "error", "zoneform/malicious-script"],
      ["zoneform/malicious-connection", "error", "zoneform/malicious-connection"],
      ["zoneform/insecure-cookie", "warning", "zoneform/insecure-cookie"],
      ["zoneform/insecure-cookie", "note", "zoneform/insecure-cookie"],
    ]);
    expect(run.results[0].message.text).toBe(
      "Malicious script https://js.stripe.com/v3/skim.js (on pay.example, first seen on page " +
        "pay.example/checkout): js_integrity_score 4 < 10.",
    );
  });

  it(
    "locates a malicious script at the entry authorizing it, others at the zone, a zone not in the file " + "at line 1",
    () => {
      const log = audit([
        [Z, malicious],
        [Z, connection],
        [OTHER, cookieLow],
        [Z, classifyScript(script({ url: "https://elsewhere.example/x.js" }))!],
      ]);
      const where = log.runs[0].results.map((r: any) => [
        r.locations[0].physicalLocation.artifactLocation.uri,
        r.locations[0].physicalLocation.region.startLine,
      ]);
      expect(where).toEqual([
        ["config/zoneform.yaml", 9],
        ["config/zoneform.yaml", 3],
        ["config/zoneform.yaml", 1],
        ["config/zoneform.yaml", 3],
      ]);
      expect(log.runs[0].results[0].locations[0].logicalLocations).toEqual([
        { name: "pay.example", fullyQualifiedName: `zone/${Z}`, kind: "module" },
      ]);
      expect(log.runs[0].results[2].locations[0].logicalLocations).toEqual([
        { name: OTHER, fullyQualifiedName: `zone/${OTHER}`, kind: "module" },
      ]);
    },
  );

  it("without a configuration: the zone as a logical location only, still valid", () => {
    const log = audit([[Z, malicious]], { positions: false });
    expect(sarifSchemaErrors(log)).toEqual([]);
    expect(log.runs[0].results[0].locations).toEqual([
      { logicalLocations: [{ name: "pay.example", fullyQualifiedName: `zone/${Z}`, kind: "module" }] },
    ]);
  });

  it(
    "fingerprints: the same across runs whose scores, dates and reasons differ; different per rule, " + "zone and item",
    () => {
      const first = audit([
        [Z, malicious],
        [Z, cookieMedium],
      ]);
      const later = audit([
        [
          Z,
          classifyScript(
            script({
              js_integrity_score: 30,
              magecart_score: 2,
              last_seen_at: "2027-01-01T00:00:00Z",
              first_page_url: "pay.example/checkout/2",
            }),
          )!,
        ],
        [
          Z,
          classifyCookie({
            id: cookieMedium.id,
            name: "__Session",
            host: "pay.example",
            secure_attribute: false,
            http_only_attribute: true,
          })!,
        ],
      ]);
      const fp = (log: any) => log.runs[0].results.map((r: any) => r.partialFingerprints[FINGERPRINT_KEY]);
      expect(fp(later)).toEqual(fp(first));
      expect(first.runs[0].results[0].message.text).not.toBe(later.runs[0].results[0].message.text);
      expect(fp(first)[0]).toMatch(/^[0-9a-f]{64}$/);
      expect(fp(first)[0]).toBe(findingFingerprint("malicious-script", Z, malicious.id));
      const others = [
        findingFingerprint("malicious-script", OTHER, malicious.id),
        findingFingerprint("unauthorized-script", Z, malicious.id),
        findingFingerprint("malicious-script", Z, "another-id"),
      ];
      for (const o of others) expect(o).not.toBe(fp(first)[0]);
    },
  );

  it("escapes control and bidirectional characters of API text in messages", () => {
    const hostile = classifyScript(
      script({ url: "https://evil.example/\u001b[2Jx\u202e.js", first_page_url: "pay.example/\r\ncheckout" }),
    )!;
    const text: string = audit([[Z, hostile]]).runs[0].results[0].message.text;
    // Brackets escaped as SARIF requires of literal ones (no embedded link can form).
    expect(text).toContain("\\u001b\\[2Jx\\u202e.js");
    expect(text).toContain("pay.example/\\r\\ncheckout");
    expect(/[\u0000-\u001f\u202e]/.test(text)).toBe(false);
  });
});

describe("SARIF from the script inventory", () => {
  const seen = (over: Partial<SeenScript>): SeenScript => ({
    id: "1".repeat(32),
    url: "https://js.stripe.com/v3/",
    last_seen_at: "2026-11-24T00:00:00Z",
    first_page_url: "pay.example/checkout",
    ...over,
  });
  const scripts: SeenScript[] = [
    seen({}),
    seen({ id: "2".repeat(32), url: "https://cdn.pay.example/app.js", hash: "b".repeat(64) }),
    seen({ id: "3".repeat(32), url: "https://skimmer.example/s.js" }),
    seen({ id: "4".repeat(32), url: "https://js.stripe.com/v3/evil.js", malicious: ["js_integrity_score 3 < 10"] }),
  ];

  it("audit's inventory check: unauthorized at the authorized list, changed and stale at their entry", () => {
    let out = "";
    const r = new SarifAuditRenderer((t) => (out += t), { version: "0.1.0", positions: configPositions(SOURCES) });
    const check = checkInventory(
      {
        pages: ["pay.example/checkout*"],
        authorized: [
          { url: "https://js.stripe.com/v3/*", justification: "x", owner: "o" },
          { url: "https://cdn.pay.example/app.js", justification: "y", owner: "o", hash: "a".repeat(64) },
          { url: "https://old.example/gone.js", justification: "z", owner: "o" },
        ],
      },
      scripts,
      new Map(),
      { now: NOW },
    );
    r.inventory(Z, check, { checked_at: NOW.toISOString(), query: {} });
    r.end(TOTALS);
    const log = JSON.parse(out);
    expect(sarifSchemaErrors(log)).toEqual([]);
    expect(
      log.runs[0].results.map((x: any) => [x.ruleId, x.level, x.locations[0].physicalLocation.region.startLine]),
    ).toEqual([
      ["zoneform/unauthorized-script", "error", 8],
      ["zoneform/changed-script", "error", 12],
      ["zoneform/stale-authorization", "note", 16],
    ]);
    expect(log.runs[0].results[0].message.text).toMatch(
      /^unauthorized script https:\/\/skimmer\.example\/s\.js: .* \(PCI DSS v4\.0 6\.4\.3\)\.$/,
    );
    // A stale authorization is the entry; a changed script the script.
    expect(log.runs[0].results[2].partialFingerprints[FINGERPRINT_KEY]).toBe(
      findingFingerprint("stale-authorization", Z, "https://old.example/gone.js"),
    );
    expect(log.runs[0].results[1].partialFingerprints[FINGERPRINT_KEY]).toBe(
      findingFingerprint("changed-script", Z, "2".repeat(32)),
    );
  });

  it(
    "inventory --merge FILE: malicious at the entry authorizing it, then the check against FILE; category " +
      "and file as given",
    () => {
      const { log } = inventorySarif({
        zone: { id: Z, name: "pay.example" },
        pages: ["pay.example/checkout*"],
        scripts,
        now: NOW,
        merge: { file: "zoneform.yaml", text: CONFIG, label: "--merge zoneform.yaml" },
        version: "0.1.0",
        category: "zoneform/inventory/pay",
      });
      expect(sarifSchemaErrors(log)).toEqual([]);
      const run = (log as any).runs[0];
      expect(run.automationDetails.id).toBe("zoneform/inventory/pay/");
      expect(
        run.results.map((x: any) => [
          x.ruleId,
          x.locations[0].physicalLocation.artifactLocation.uri,
          x.locations[0].physicalLocation.region.startLine,
        ]),
      ).toEqual([
        ["zoneform/malicious-script", "zoneform.yaml", 9],
        ["zoneform/unauthorized-script", "zoneform.yaml", 8],
        ["zoneform/changed-script", "zoneform.yaml", 12],
        ["zoneform/stale-authorization", "zoneform.yaml", 16],
      ]);
    },
  );

  it("inventory without a file: every script in scope is unauthorized, located at the zone only", () => {
    const { log } = inventorySarif({
      zone: { id: Z },
      pages: ["pay.example/checkout*"],
      scripts,
      now: NOW,
      version: "0.1.0",
    });
    expect(sarifSchemaErrors(log)).toEqual([]);
    const run = (log as any).runs[0];
    expect(run.automationDetails.id).toBe("zoneform/inventory/");
    expect(run.results.map((x: any) => x.ruleId)).toEqual([
      "zoneform/malicious-script",
      ...scripts.map(() => "zoneform/unauthorized-script"),
    ]);
    expect(
      run.results.every(
        (x: any) => x.locations[0].physicalLocation === undefined && x.locations[0].logicalLocations[0].name === Z,
      ),
    ).toBe(true);
  });
});

describe("SARIF pieces", () => {
  it("the schema check fails on what code scanning would reject (it can fail)", () => {
    const good = sarifLog({
      version: "0.1.0",
      category: "zoneform/audit",
      results: [
        sarifResult({
          rule: "insecure-cookie",
          level: "note",
          message: "m",
          zone: { id: Z },
          subject: "s",
          where: { file: "a.yaml", line: 3 },
        }),
      ],
    });
    expect(sarifSchemaErrors(good)).toEqual([]);
    const badLevel = structuredClone(good) as any;
    badLevel.runs[0].results[0].level = "high";
    expect(sarifSchemaErrors(badLevel).join("\n")).toMatch(/level/);
    const noLine = structuredClone(good) as any;
    noLine.runs[0].results[0].locations[0].physicalLocation.region = { startColumn: 2 };
    expect(sarifSchemaErrors(noLine).join("\n")).toMatch(/errata01: .*region/);
  });

  it("artifact URIs: relative references with / and percent-encoded segments, absolute paths as file: URLs", () => {
    expect(artifactUri("config/zone form.yaml")).toBe("config/zone%20form.yaml");
    expect(artifactUri("./zoneform.yaml")).toBe("zoneform.yaml");
    expect(artifactUri("dir\\#1.yaml")).toBe("dir/%231.yaml");
    expect(artifactUri("/tmp/x/zoneform.yaml")).toBe("file:///tmp/x/zoneform.yaml");
  });

  it("rules: one per finding kind, each GitHub security-severity a number", () => {
    expect(sarifRules()).toHaveLength(RULE_KEYS.length);
    for (const r of sarifRules()) expect(Number(r.properties["security-severity"])).toBeGreaterThan(0);
  });
});
