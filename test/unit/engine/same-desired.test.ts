// `apply PLAN -c CONFIG` (src/engine/same-desired.ts): the plan's desired state and the
// configuration's, both loaded as `plan` loads them, compared zone by zone and section by section; a
// difference of spelling or of a default written out is none, any other is named (zone and section,
// never a value).
import { describe, expect, it } from "vitest";
import { parseConfigText } from "../../../src/config/index.js";
import { assertSameDesired, desiredDifferences } from "../../../src/engine/same-desired.js";
import { StalePlanError } from "../../../src/errors.js";

const COM = "0123456789abcdef0123456789abcdef";
const NET = "fedcba9876543210fedcba9876543210";
const ENV = { TOKEN: "a-secret-token-value" };

const BASE = `version: 1
safety: { max_deletes: 2 }
zones:
  - zone_id: ${COM}
    name: example.com
    page_shield:
      enabled: true
      policies:
        - { description: Checkout, action: log, expression: "true", value: "script-src 'self'" }
    logs:
      logpush_jobs:
        - { name: http, dataset: http_requests, destination_conf: "https://h.example/?header_Authorization=\${env:TOKEN}" }
  - zone_id: ${NET}
    name: example.net
    waf:
      owasp: { enabled: true, paranoia_level: 2 }
`;

const load = (text: string, env: Record<string, string> = ENV) => parseConfigText(text, "z.yaml", env).desired;

describe("the plan's desired state against the configuration's", () => {
  it("finds none when they plan the same, whatever the spelling (flow or block, defaults written out)", () => {
    const spelled = BASE.replace(
      'policies:\n        - { description: Checkout, action: log, expression: "true", value: "script-src \'self\'" }',
      "prune: true\n      policies:\n        - description: Checkout\n          action: log\n" +
        '          expression: "true"\n          value: "script-src \'self\'"\n          enabled: true',
    );
    expect(spelled).not.toBe(BASE);
    expect(desiredDifferences(load(BASE), load(spelled))).toEqual([]);
  });

  it("names the zone and each section that differs, the zone's own keys, and never a value", () => {
    const changed = BASE.replace("paranoia_level: 2", "paranoia_level: 3")
      .replace("value: \"script-src 'self'\"", 'value: "script-src *"')
      .replace("name: example.net", "name: example.net\n    logs: { prune: false }");
    const found = desiredDifferences(load(BASE), load(changed));
    expect(found).toEqual([`example.com (${COM}): page_shield differs`, `example.net (${NET}): waf, logs differ`]);
    // Both carry references, never values: another value is the binding's to tell (verify.ts), not this.
    expect(desiredDifferences(load(BASE), load(BASE, { TOKEN: "another-secret-value" }))).toEqual([]);
  });

  it("names zones in one and not the other, and the account and safety settings", () => {
    const onlyCom = BASE.slice(0, BASE.indexOf(`  - zone_id: ${NET}`)).replace("max_deletes: 2", "max_deletes: 9");
    expect(desiredDifferences(load(BASE), load(onlyCom))).toEqual([
      "safety differs",
      `example.net (${NET}): in the plan, not in the configuration`,
    ]);
    expect(desiredDifferences(load(onlyCom), load(BASE))).toEqual([
      "safety differs",
      `example.net (${NET}): in the configuration, not in the plan`,
    ]);
    const account = BASE.replace("version: 1", `version: 1\naccount_id: ${COM}`);
    expect(desiredDifferences(load(BASE), load(account))).toEqual(["account_id differs"]);
  });

  it("refuses with exit 1, naming the plan and the configuration", () => {
    const changed = load(BASE.replace("enabled: true\n      policies", "enabled: false\n      policies"));
    let error: unknown;
    try {
      assertSameDesired(load(BASE), changed, "the plan file plan.json", "the configuration zoneform.yaml");
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(StalePlanError);
    expect((error as StalePlanError).exitCode).toBe(1);
    expect((error as Error).message).toBe(
      "the plan file plan.json was not made from the configuration zoneform.yaml; nothing was read or written:\n" +
        `  example.com (${COM}): page_shield differs\n` +
        "Make the plan again from this configuration and review it.",
    );
    expect(() => assertSameDesired(load(BASE), load(BASE), "p", "c")).not.toThrow();
  });
});
