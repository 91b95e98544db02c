// The file's one escape (`$${` is the text `${`) read back exactly, whatever the text; and prototype
// keys (`__proto__`, `constructor`, `prototype`) refused at their line before anything else reads the file.
import { describe, expect, it } from "vitest";
import { interpolateEnv } from "../../../src/secrets/interpolate.js";
import { parseConfigText } from "../../../src/config/index.js";
import { ConfigError, EXIT } from "../../../src/errors.js";
import { escapeTemplateText } from "../../../src/template.js";
import { shownTemplate } from "../../../src/plan/secrets.js";

const Z = "5ababd603b22780302dd8d83498e5172";
const ENV = { X: "s3cr3t-value-of-X", NAME: "n4me-value" };

/** Every string of up to 7 characters over the alphabet that makes references, in a fixed order. */
function* texts(alphabet = ["$", "{", "}", "e", "env:X", "NAME"], max = 7): Generator<string> {
  const walk = function* (prefix: string[], depth: number): Generator<string> {
    yield prefix.join("");
    if (depth === 0) return;
    for (const a of alphabet) yield* walk([...prefix, a], depth - 1);
  };
  yield* walk([], max);
}

describe("the escape of `${`", () => {
  it("an escaped text reads back as itself: no reference, no secret, no finding", () => {
    let n = 0;
    for (const text of texts(undefined, 5)) {
      const r = interpolateEnv({ text: escapeTemplateText(text) }, ENV);
      expect((r.value as { text: string }).text, JSON.stringify(text)).toBe(text);
      expect(r.names, text).toEqual([]);
      expect(r.findings, text).toEqual([]);
      n++;
    }
    expect(n).toBeGreaterThan(5000);
  });

  it("a text with an unclosed `${` reads back as itself too", () => {
    for (const text of ["${", "a ${env:X", "$${x", "${a${env:X}", "}${env:X}{", "$$${env:X}"]) {
      const r = interpolateEnv({ text: escapeTemplateText(text) }, ENV);
      expect((r.value as { text: string }).text).toBe(text);
      expect(r.names).toEqual([]);
    }
  });

  it("`$${` is `${` wherever it stands; a reference beside it is still read", () => {
    const r = interpolateEnv({ a: "$${env:X}", b: "$${", c: "$$${env:X}", d: "$${env:X} ${env:X}" }, ENV);
    expect(r.value).toEqual({ a: "${env:X}", b: "${", c: "$${env:X}", d: `\${env:X} ${ENV.X}` });
    expect(shownTemplate("$${env:X} ${env:X} $${")).toBe("${env:X} (sensitive) ${");
  });

  it("a policy whose text holds `${env:X}` written escaped loads as that text, X unread", () => {
    const text = `version: 1
zones:
  - zone_id: ${Z}
    page_shield:
      policies:
        - description: ${JSON.stringify(escapeTemplateText("Checkout ${env:X}"))}
          action: log
          expression: "true"
          value: ${JSON.stringify(escapeTemplateText("script-src 'self' ${env:X}"))}
`;
    const { desired } = parseConfigText(text, "z.yaml", ENV);
    const policy = desired.zones[0]!.page_shield!.policies![0]!;
    // The desired state keeps the escape (its one template syntax); what a write sends reads it as text.
    expect(policy.description).toBe("Checkout $${env:X}");
    expect(policy.value).toBe("script-src 'self' $${env:X}");
    expect(desired.secrets.names).toEqual([]);
    expect(desired.secrets.resolveForWrite(policy.description)).toBe("Checkout ${env:X}");
  });
});

function refused(text: string): ConfigError {
  try {
    parseConfigText(text, "z.yaml", ENV);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error("expected a ConfigError");
}

describe("prototype keys", () => {
  const cases: Array<[string, string, number, string]> = [
    ["at the top level", `version: 1\n__proto__:\n  polluted: yes\nzones: []\n`, 2, "/__proto__"],
    [
      "inside a zone",
      `version: 1\nzones:\n  - zone_id: ${Z}\n    "__proto__": { polluted: yes }\n    page_shield: { enabled: true }\n`,
      4,
      "/zones/0/__proto__",
    ],
    [
      "inside a list item",
      `version: 1\nzones:\n  - zone_id: ${Z}\n    page_shield:\n      policies:\n        - description: d\n ` +
        `         action: log\n          expression: "true"\n          value: v\n          constructor: { ` +
        `polluted: yes }\n`,
      10,
      "/zones/0/page_shield/policies/0/constructor",
    ],
    [
      "as prototype, deep",
      `version: 1\nzones:\n  - zone_id: ${Z}\n    logs:\n      custom_fields:\n        prototype: [a]\n`,
      6,
      "/zones/0/logs/custom_fields/prototype",
    ],
  ];
  for (const [where, text, line, pointer] of cases) {
    it(`are refused ${where}, at their line, before the schema`, () => {
      const err = refused(text);
      expect(err.exitCode).toBe(EXIT.invalid);
      // The one problem: no schema error (the file is read no further).
      expect(err.problems).toHaveLength(1);
      expect(err.problems[0]).toMatchObject({ file: "z.yaml", line, pointer, severity: "error" });
      expect(err.problems[0]!.message).toMatch(/^the key '(__proto__|constructor|prototype)' is not allowed/);
      expect(err.message).toContain(`z.yaml:${line}:`);
      expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
      expect(Object.prototype).not.toHaveProperty("polluted");
    });
  }

  it("as a JSON document too (a saved plan's desired state is read the same way)", () => {
    const err = refused(
      JSON.stringify({ version: 1, zones: [{ zone_id: Z, ["__proto__"]: { polluted: 1 } }] }).replace(
        '"zone_id"',
        '"__proto__":{"polluted":1},"zone_id"',
      ),
    );
    expect(err.problems[0]!.message).toContain("'__proto__'");
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it("a value or a key that only contains the word is fine", () => {
    const text =
      `version: 1\nzones:\n  - zone_id: ${Z}\n    page_shield:\n      policies:\n        - { ` +
      `description: __proto__, action: log, expression: "true", value: constructor }\n`;
    const { desired } = parseConfigText(text, "z.yaml", ENV);
    expect(desired.zones[0]!.page_shield!.policies![0]!.description).toBe("__proto__");
  });
});
