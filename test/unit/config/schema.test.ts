// The JSON Schema itself: documented everywhere (editors show descriptions on hover), closed
// everywhere, and in agreement with the model's enums and the examples.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { getValidator, loadSchema } from "../../../src/config/schema.js";
import { FILTER_OPERATORS } from "../../../src/sections/logpush_jobs/filter.js";

type S = Record<string, unknown>;
const schema = loadSchema() as S;
const defs = schema.$defs as Record<string, S>;
const resolve = (s: S): S => (typeof s.$ref === "string" ? { ...defs[s.$ref.replace("#/$defs/", "")]!, ...s } : s);

function* objectSchemas(s: S, where: string, seen = new Set<S>()): Generator<{ s: S; where: string }> {
  if (seen.has(s)) return;
  seen.add(s);
  if (s.properties) yield { s, where };
  for (const [k, v] of Object.entries((s.properties as Record<string, S>) ?? {}))
    yield* objectSchemas(resolve(v), `${where}/${k}`, seen);
  if (s.items && typeof s.items === "object") yield* objectSchemas(resolve(s.items as S), `${where}[]`, seen);
}

describe("zoneform.schema.json", () => {
  const objects = [...objectSchemas(schema, "")];

  it("uses draft 2020-12", () => {
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
  });

  it("describes every property", () => {
    const undocumented = objects.flatMap(({ s, where }) =>
      Object.entries(s.properties as Record<string, S>)
        .filter(([, v]) => typeof resolve(v).description !== "string")
        .map(([k]) => `${where}/${k}`),
    );
    expect(undocumented).toEqual([]);
  });

  it("closes every object with additionalProperties: false", () => {
    expect(objects.filter(({ s }) => s.additionalProperties !== false).map((o) => o.where)).toEqual([]);
    expect(objects.length).toBeGreaterThan(12);
  });

  it("has every property in the configuration reference (docs/configuration.md)", () => {
    const readme = readFileSync(new URL("../../../docs/configuration.md", import.meta.url), "utf8");
    const section = readme.slice(
      readme.indexOf("<!-- section:configuration -->"),
      readme.indexOf("<!-- /section:configuration -->"),
    );
    const names = new Set(objects.flatMap(({ s }) => Object.keys(s.properties as S)));
    expect([...names].filter((n) => !section.includes(`\`${n}\``) && !section.includes(`.${n}\``))).toEqual([]);
  });

  it("lists the filter operators the filter module knows", () => {
    expect((defs.filterNode!.properties as Record<string, S>).operator!.enum).toEqual([...FILTER_OPERATORS]);
  });

  it("compiles under ajv's strict mode", () => {
    expect(() => getValidator()).not.toThrow();
  });

  it.each([
    ["/zones/0/waf/owasp/paranoia_level", 0, false],
    ["/zones/0/waf/owasp/paranoia_level", 4, true],
    ["/zones/0/waf/owasp/score_threshold", "high", true],
    ["/zones/0/waf/owasp/score_threshold", 101, false],
    ["/zones/0/waf/owasp/score_threshold", 40.5, false],
  ])("bounds %s = %s (valid: %s)", (_p, value, valid) => {
    const doc = {
      version: 1,
      zones: [
        {
          zone_id: "5ababd603b22780302dd8d83498e5172",
          waf: { owasp: { enabled: true, [_p.split("/").pop()!]: value } },
        },
      ],
    };
    expect(getValidator()(doc)).toBe(valid);
  });

  it.each([
    ["max_upload_bytes", [0, 5_000_000, 1_000_000_000], [1, 4_999_999, 1_000_000_001]],
    ["max_upload_interval_seconds", [0, 30, 300], [29, 301, -1]],
    ["max_upload_records", [0, 1000, 1_000_000], [999, 1_000_001]],
  ])("accepts 0 or the documented range for %s", (field, good, bad) => {
    const doc = (v: number) => ({
      version: 1,
      zones: [
        {
          zone_id: "5ababd603b22780302dd8d83498e5172",
          logs: { logpush_jobs: [{ name: "a", dataset: "http_requests", destination_conf: "s3://b", [field]: v }] },
        },
      ],
    });
    for (const v of good) expect(getValidator()(doc(v)), `${v}`).toBe(true);
    for (const v of bad) expect(getValidator()(doc(v)), `${v}`).toBe(false);
  });
});
