// `defaults:` at the top level of a file: the merge (objects key by key, lists whole, the zone wins,
// null), the loader seeing each zone as if written out in full, and every message at the line the
// value came from (defaults or the zone).
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { checkConfigSources, loadConfig, parseConfigText } from "../../../src/config/index.js";
import { applyDefaults, MAX_MERGED_VALUES, mergeDefaults } from "../../../src/config/defaults.js";
import { publishedSchema, toDraft07 } from "../../../src/config/schema.js";
import { assembleSchemaFrom } from "../../../src/sections/schema.js";
import type { ConfigProblem } from "../../../src/errors.js";
import type { Env } from "../../../src/model/env.js";

const A = "5ababd603b22780302dd8d83498e5172";
const B = "28bf0eba6631b5563247f1b42d9a7f17";
const C = "1bdf72e04d6b50c82a48c7e4dd38cc69";

/** Every problem (errors, then warnings) of one file, as `line:column pointer message`. */
function problems(text: string, env: Env = {}, missingEnv: "error" | "warning" = "error"): string[] {
  const r = checkConfigSources([{ file: "z.yaml", text }], env, missingEnv);
  return [...r.errors, ...r.warnings].map(shown);
}

function shown(p: ConfigProblem): string {
  return `${p.line}:${p.column} ${p.pointer} ${p.severity === "warning" ? "warning: " : ""}${p.message}`;
}

/** The zones as loaded, without where they were written. */
function zonesOf(text: string, env: Env = {}) {
  return parseConfigText(text, "z.yaml", env).desired.zones.map(({ source: _source, ...z }) => z);
}

describe("mergeDefaults", () => {
  it("merges mappings key by key at every depth; the zone's own values win", () => {
    const defaults = { a: { b: { c: 1, d: 2 }, e: "x" }, f: true };
    const zone = { a: { b: { d: 3 } }, g: 4 };
    expect(mergeDefaults(defaults, zone)).toEqual({ a: { b: { c: 1, d: 3 }, e: "x" }, f: true, g: 4 });
  });

  it("replaces lists whole, never joining them, whatever they hold", () => {
    const defaults = { l: [1, 2], m: { list: [{ a: 1 }, { a: 2 }] } };
    expect(mergeDefaults(defaults, { l: [3], m: { list: [{ b: 1 }] } })).toEqual({ l: [3], m: { list: [{ b: 1 }] } });
    expect(mergeDefaults(defaults, { l: [] })).toEqual({ l: [], m: { list: [{ a: 1 }, { a: 2 }] } });
  });

  it("takes a zone's value whole when it and the default are not both mappings", () => {
    expect(mergeDefaults({ a: { b: 1 } }, { a: "text" })).toEqual({ a: "text" });
    expect(mergeDefaults({ a: "text" }, { a: { b: 1 } })).toEqual({ a: { b: 1 } });
    expect(mergeDefaults({ a: [1] }, { a: { b: 1 } })).toEqual({ a: { b: 1 } });
    expect(mergeDefaults({ a: false }, { a: 0 })).toEqual({ a: 0 });
  });

  it("null in a zone takes the default out, at any depth; where there is no default it stays null", () => {
    const defaults = { a: { b: 1, c: 2 }, d: [1] };
    expect(mergeDefaults(defaults, { a: { b: null }, d: null })).toEqual({ a: { c: 2 } });
    expect(mergeDefaults(defaults, { a: null })).toEqual({ d: [1] });
    expect(mergeDefaults(defaults, { e: null, a: { x: null } })).toEqual({
      a: { b: 1, c: 2, x: null },
      d: [1],
      e: null,
    });
  });

  it("copies no null of defaults into a zone at its own key (defaults' own check refuses it)", () => {
    expect(mergeDefaults({ a: null, b: 1 }, {})).toEqual({ b: 1 });
  });

  it("changes neither side and shares nothing with defaults", () => {
    const defaults = { a: { b: [1, 2] }, c: { d: 1 } };
    const zone = { a: { e: 1 } };
    const before = structuredClone({ defaults, zone });
    const merged = mergeDefaults(defaults, zone) as { a: { b: number[] }; c: { d: number } };
    merged.a.b.push(3);
    merged.c.d = 2;
    expect({ defaults, zone }).toEqual(before);
  });
});

describe("applyDefaults", () => {
  it("maps each copied value back to where defaults wrote it, and the zone's own to the zone", () => {
    const doc = { version: 1, defaults: { waf: { owasp: { enabled: true } } }, zones: [{ zone_id: A, waf: {} }] };
    const expanded = applyDefaults(doc);
    expect(expanded.value).toEqual({
      version: 1,
      defaults: { waf: { owasp: { enabled: true } } },
      zones: [{ zone_id: A, waf: { owasp: { enabled: true } } }],
    });
    expect(expanded.origin("/zones/0/waf/owasp/enabled")).toBe("/defaults/waf/owasp/enabled");
    expect(expanded.origin("/zones/0/waf/owasp")).toBe("/defaults/waf/owasp");
    expect(expanded.origin("/zones/0/waf")).toBe("/zones/0/waf");
    expect(expanded.origin("/zones/0/zone_id")).toBe("/zones/0/zone_id");
  });

  it("leaves a document without defaults as it is", () => {
    const doc = { version: 1, zones: [{ zone_id: A }] };
    const expanded = applyDefaults(doc);
    expect(expanded.value).toBe(doc);
    expect(expanded.findings).toEqual([]);
  });

  it("refuses to copy more than MAX_MERGED_VALUES values into the zones, merging nothing", () => {
    const list = Array.from({ length: 999 }, (_, i) => `h${i}`);
    const zones = Array.from({ length: Math.ceil(MAX_MERGED_VALUES / 1000) + 1 }, () => ({ zone_id: A }));
    const expanded = applyDefaults({ version: 1, defaults: { waf: { l: list } }, zones });
    expect(expanded.findings).toEqual([
      {
        pointer: "/defaults",
        message: expect.stringMatching(/^defaults would copy \d+ values into \d+ zones \(more than 2000000\)/),
      },
    ]);
    expect((expanded.value as { zones: unknown[] }).zones[0]).toEqual({ zone_id: A });
  });
});

const FULL = `version: 1
zones:
  - zone_id: ${A}
    name: example.com
    page_shield:
      enabled: true
      policies:
        - description: Report
          action: log
          expression: "true"
          value: script-src 'self' \${env:CDN} $\${kept}
    waf:
      owasp: { enabled: false, paranoia_level: 2, action: block }
    logs:
      custom_fields: { cookies: [__Session] }
  - zone_id: ${B}
    name: example.net
    page_shield:
      enabled: true
    waf:
      owasp: { enabled: true, paranoia_level: 2, action: block }
    logs:
      custom_fields: { cookies: [__Session] }
      logpush_jobs: []
`;

const WITH_DEFAULTS = `version: 1
defaults:
  page_shield:
    enabled: true
    policies:
      - description: Report
        action: log
        expression: "true"
        value: script-src 'self' \${env:CDN} $\${kept}
  waf:
    owasp: { enabled: true, paranoia_level: 2, action: block }
  logs:
    custom_fields: { cookies: [__Session] }
zones:
  - zone_id: ${A}
    name: example.com
    waf:
      owasp: { enabled: false }
  - zone_id: ${B}
    name: example.net
    page_shield:
      policies: null
    logs:
      logpush_jobs: []
`;

describe("a file with defaults", () => {
  it("loads each zone as the file written out in full does, as written and normalized", () => {
    const env = { CDN: "https://cdn.example" };
    expect(zonesOf(WITH_DEFAULTS, env)).toEqual(zonesOf(FULL, env));
    const [a] = zonesOf(WITH_DEFAULTS, env);
    // A reference as in a zone; the escape stays an escape (the desired state is in template syntax).
    expect(a!.page_shield!.policies![0]!.value).toBe("script-src 'self' ${env:CDN} $${kept}");
    expect((a!.declared as any).page_shield.policies[0].value).toBe("script-src 'self' ${env:CDN} $${kept}");
    const { desired } = parseConfigText(WITH_DEFAULTS, "z.yaml", env);
    expect(desired.secrets.names).toEqual(["CDN"]);
    expect(desired.zones.map((z) => z.source)).toEqual([
      { file: "z.yaml", line: 15, column: 5 },
      { file: "z.yaml", line: 19, column: 5 },
    ]);
  });

  it("points a schema error of a default at its line in defaults, once, and one of a zone at the zone", () => {
    const text = WITH_DEFAULTS.replace("paranoia_level: 2", "paranoia_level: 7").replace(
      "owasp: { enabled: false }",
      "owasp: { enabled: nope }",
    );
    expect(problems(text, { CDN: "x" })).toEqual([
      "11:45 /defaults/waf/owasp/paranoia_level must be ≤ 4 (got 7)",
      "18:25 /zones/0/waf/owasp/enabled must be true or false (got string 'nope')",
    ]);
  });

  it("names the zones of a problem only a zone shows, at the default's line", () => {
    // Neither defaults nor the zone give `enabled`: the mapping comes from defaults in example.net.
    const text = WITH_DEFAULTS.replace("owasp: { enabled: true, paranoia_level: 2, action: block }", "owasp: {}");
    expect(problems(text, { CDN: "x" })).toEqual([
      "11:12 /defaults/waf/owasp missing required key 'enabled' (in zone example.net, from defaults)",
    ]);
    // A rule on the merged zone: `prune` without the list, in both zones.
    const pruned = WITH_DEFAULTS.replace(
      "  page_shield:\n    enabled: true\n    policies:",
      "  page_shield:\n    prune: false\n    enabled: true\n    policies:",
    );
    expect(problems(pruned, { CDN: "x" })).toEqual([
      "4:12 /defaults/page_shield/prune warning: prune has no effect without 'policies': policies are not " +
        "managed in this zone (in zone example.net, from defaults)",
    ]);
  });

  it("reports an unset ${env:} of a default once, at its line, as an error for plan and a warning for validate", () => {
    expect(problems(WITH_DEFAULTS)).toEqual([
      "9:16 /defaults/page_shield/policies/0/value environment variable CDN is not set (referenced as ${env:CDN})",
    ]);
    expect(problems(WITH_DEFAULTS, {}, "warning")).toEqual([
      "9:16 /defaults/page_shield/policies/0/value warning: environment variable CDN is not set (referenced as " +
        "${env:CDN}); plan and apply will need it",
    ]);
  });

  it("refuses a credential written in defaults at its line, once", () => {
    const token = "cfut_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdef";
    const text = WITH_DEFAULTS.replace("${env:CDN}", token);
    const found = problems(text);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^9:16 \/defaults\/page_shield\/policies\/0\/value this value looks like a .* token/);
    expect(found[0]).not.toContain(token);
  });

  it("refuses a zone's identity, the zone-only sections and id pins in defaults, saying why", () => {
    const text = `version: 1
defaults:
  zone_id: ${A}
  name: example.com
  account_id: 0123456789abcdef0123456789abcdef
  custom_hostnames:
    - hostname: shop.example.com
  page_shield:
    policies:
      - id: 0123456789abcdef0123456789abcdef
        description: Report
        action: log
        expression: "true"
        value: script-src 'self'
zones:
  - zone_id: ${B}
`;
    expect(problems(text)).toEqual([
      `3:12 /defaults/zone_id a zone's identity is never a default: each zone names its own zone_id (got '${A}')`,
      "4:9 /defaults/name a zone's name is never a default: each zone names its own (or none) (got 'example.com')",
      "5:15 /defaults/account_id a zone's account is not a default: write account_id once at the top level of " +
        "the file (the account of every zone that names none) (got '0123456789abcdef0123456789abcdef')",
      "7:5 /defaults/custom_hostnames custom_hostnames belongs in a zone, not in defaults: a custom hostname " +
        "exists in one zone only, so list it in the zone that has it",
      "10:9 /defaults/page_shield/policies/0/id an id pins a live object of one zone, and defaults are copied into " +
        "every zone: pin it in the zone's own entry (write this list in that zone), or leave the id out",
    ]);
  });

  it("refuses an unknown key, a null and a defaults that is not a mapping, at defaults", () => {
    expect(problems(`version: 1\ndefaults:\n  page_sheild: {}\n  waf:\nzones:\n  - zone_id: ${A}\n`)).toEqual([
      "3:3 /defaults/page_sheild unknown key 'page_sheild'; did you mean 'page_shield'?",
      "4:3 /defaults/waf must be a mapping (got nothing)",
    ]);
    // Allowed: every section of a zone (from the registry, as the schema is), less those of one zone only.
    const allowed = Object.entries(publishedSchema(assembleSchemaFrom(), "0.0.0").$defs.defaults.properties)
      .filter(([, p]) => !Object.hasOwn(p as object, "not"))
      .map(([key]) => key);
    expect(allowed.slice(0, 3)).toEqual(["page_shield", "waf", "logs"]);
    expect(problems(`version: 1\ndefaults:\n  xxxxxxxxxxxx: 1\nzones:\n  - zone_id: ${A}\n`)).toEqual([
      `3:3 /defaults/xxxxxxxxxxxx unknown key 'xxxxxxxxxxxx'; allowed here: ${allowed.join(", ")}`,
    ]);
    expect(problems(`version: 1\ndefaults: [waf]\nzones:\n  - zone_id: ${A}\n`)).toEqual([
      "2:11 /defaults must be a mapping (got a list)",
    ]);
  });

  it("lets defaults leave out keys a zone gives; a zone that gives none is told at the default", () => {
    const text = `version: 1
defaults:
  waf:
    owasp: { paranoia_level: 3 }
zones:
  - zone_id: ${A}
    waf:
      owasp: { enabled: true }
  - zone_id: ${B}
`;
    expect(problems(text)).toEqual([
      `4:12 /defaults/waf/owasp missing required key 'enabled' (in zone ${B}, from defaults)`,
    ]);
    const fixed = text.replace(`  - zone_id: ${B}\n`, `  - zone_id: ${B}\n    waf: null\n`);
    expect(zonesOf(fixed).map((z) => z.waf?.owasp?.paranoia_level)).toEqual([3, undefined]);
  });

  it("names at most five zones of a problem from defaults, then how many more", () => {
    const ids = Array.from({ length: 7 }, (_, i) => `${"a".repeat(31)}${i}`);
    const text = `version: 1\ndefaults:\n  waf:\n    owasp: {}\nzones:\n${ids.map((id) => `  - zone_id: ${id}\n`).join("")}`;
    expect(problems(text)).toEqual([
      `4:12 /defaults/waf/owasp missing required key 'enabled' (in zones ${ids.slice(0, 5).join(", ")} and 2 ` +
        "more, from defaults)",
    ]);
  });

  it("works with YAML anchors and merge keys", () => {
    const text = `version: 1
defaults:
  waf: &waf
    owasp: { enabled: true, paranoia_level: 2 }
  page_shield: &ps { enabled: true }
zones:
  - zone_id: ${A}
    page_shield:
      <<: *ps
      use_connection_url_path: true
  - zone_id: ${B}
    waf:
      <<: *waf
      cloudflare_managed: { enabled: true }
`;
    const zones = zonesOf(text);
    expect(zones.map((z) => z.waf?.owasp?.paranoia_level)).toEqual([2, 2]);
    expect(zones.map((z) => z.waf?.cloudflare_managed?.enabled)).toEqual([undefined, true]);
    expect(zones.map((z) => (z.declared as any).page_shield)).toEqual([
      { enabled: true, use_connection_url_path: true },
      { enabled: true },
    ]);
  });

  it("applies a file's defaults to that file's zones only", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "zoneform-defaults-"));
    await writeFile(
      path.join(dir, "a.yaml"),
      `version: 1\ndefaults:\n  waf:\n    owasp: { enabled: true }\nzones:\n  - zone_id: ${A}\n`,
    );
    await writeFile(path.join(dir, "b.yaml"), `version: 1\nzones:\n  - zone_id: ${C}\n`);
    const { desired } = await loadConfig(dir, { env: {}, cwd: dir });
    expect(desired.zones.map((z) => [z.zone_id, z.waf?.owasp?.enabled])).toEqual([
      [A, true],
      [C, undefined],
    ]);
  });
});

describe("the published schema", () => {
  const schema = publishedSchema(assembleSchemaFrom(), "0.0.0");

  it("has defaults at the top level, before zones, with a zone's sections", () => {
    expect(Object.keys(schema.properties)).toEqual([
      "version",
      "account_id",
      "safety",
      "accounts",
      "defaults",
      "zones",
    ]);
    const defaults = schema.$defs.defaults;
    expect(defaults.additionalProperties).toBe(false);
    expect(defaults.required).toBeUndefined();
    expect(defaults.properties.zone_id).toMatchObject({ not: {}, errorMessage: expect.any(String) });
    expect(defaults.properties.custom_hostnames).toMatchObject({ not: {}, errorMessage: expect.any(String) });
    expect(defaults.properties.waf).toEqual({ $ref: "#/$defs/wafDefault" });
  });

  it("requires no key of a mapping reached through mappings, and keeps a list's entries whole", () => {
    const defs = schema.$defs;
    for (const name of Object.keys(defs).filter((n) => n.endsWith("Default"))) {
      expect(defs[name].required, name).toBeUndefined();
      expect(defs[name.slice(0, -"Default".length)], name).toBeDefined();
    }
    expect(defs.owasp.required).toEqual(["enabled"]);
    expect(defs.owaspDefault.properties).toEqual(defs.owasp.properties);
    // An entry of a list is complete where it is written: the policies keep their own definition.
    expect(defs.pageShieldDefault.properties.policies).toEqual(defs.pageShield.properties.policies);
  });

  it("has a draft-07 form for editors", () => {
    const draft07 = toDraft07(schema, "0.0.0");
    expect(draft07.properties.defaults).toEqual({ $ref: "#/definitions/defaults" });
    expect(draft07.definitions.defaults.properties.waf).toEqual({ $ref: "#/definitions/wafDefault" });
  });
});
