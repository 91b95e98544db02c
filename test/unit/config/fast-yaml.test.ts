// The fast reading (js-yaml) must give exactly what the yaml package gives, or give up: every YAML
// file of the repository, a table of plain scalars whose meaning differs between YAML schemas, and
// the constructs it must leave to the yaml package.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { fastParse } from "../../../src/config/fast-yaml.js";
import { parseYaml } from "../../../src/config/parse.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const OPTIONS = { uniqueKeys: true, merge: true, prettyErrors: false, strict: true } as const;

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (name === "node_modules" || name.startsWith(".") || name === "dist") return [];
    if (statSync(p).isDirectory()) return yamlFiles(p);
    return /\.ya?ml$/.test(name) ? [p] : [];
  });
}

/** What the yaml package reads: the value, or undefined when it reports an error or a warning. */
function slow(text: string): unknown {
  const doc = parseDocument(text, OPTIONS);
  if (doc.errors.length || doc.warnings.length) return undefined;
  return doc.toJS({ maxAliasCount: 100 });
}

describe("fast YAML reading", () => {
  const files = [...yamlFiles(path.join(ROOT, "examples")), ...yamlFiles(path.join(ROOT, "test"))];

  it("reads every YAML file of the repository as the yaml package does, or gives up", () => {
    expect(files.length).toBeGreaterThan(40);
    let read = 0;
    for (const file of files) {
      const text = readFileSync(file, "utf8");
      const fast = fastParse(text);
      if (fast === undefined || fast.value === undefined) continue;
      read++;
      expect(fast.value, file).toEqual(slow(text));
    }
    expect(read).toBeGreaterThan(files.length / 2);
  });

  it("places every zone where the positioned reading does", () => {
    for (const file of files) {
      const text = readFileSync(file, "utf8");
      const fast = parseYaml(text, file);
      if (!Array.isArray((fast.value as { zones?: unknown })?.zones)) continue;
      const zones = (fast.value as { zones: unknown[] }).zones;
      // A copy of the text with a trailing comment: equal text, but no cached reading to share.
      const positioned = parseYaml(`${text}\n#`, file);
      // Asking for a position below a zone makes the reading positioned.
      positioned.locate("/zones/0/zone_id/x");
      zones.forEach((_, i) => expect(fast.locate(`/zones/${i}`), `${file} zone ${i}`).toEqual(positioned.locate(`/zones/${i}`)));
    }
  });

  const layouts = [
    "zones:\n  - zone_id: a\n  - zone_id: b\n",
    "zones:\n- zone_id: a\n-   zone_id: b\n",
    "zones:\n  - # first\n    zone_id: a\n  -\n    zone_id: b\n",
    "zones: [ {zone_id: a}, { zone_id: b } ]\n",
    "version: 1\nzones:\n  - zone_id: a\n    page_shield: { enabled: true }\n  - {zone_id: b}\n",
  ];
  it.each(layouts)("places zones in %j as the yaml package does", (text) => {
    const fast = fastParse(text);
    expect(fast).toBeDefined();
    const doc = parseDocument(text, OPTIONS);
    const items = (doc.get("zones", true) as { items: Array<{ range: [number] }> }).items;
    expect(fast!.zoneStarts).toEqual(items.map((item) => item.range[0]));
  });

  const scalars = [
    "0b101", "1_000", "0x1F", "0X1F", "0o17", "0O17", "017", "+12", "-0", "0.", ".5", "1.", "1e3", "1E+3", "-1.5e-3", "1_0.5",
    ".inf", "-.Inf", "+.INF", ".NaN", ".nan", "NaN", "inf", "~", "null", "Null", "NULL", "nULL", "", "true", "True", "TRUE",
    "tRUE", "yes", "no", "on", "off", "y", "n", "2001-12-14", "2001-12-14t21:59:43.10-05:00", "12:30:00", "0x", "0o", "-0x1", "+0o7",
    "12345678901234567890", "0.1e", "=", "<<x", "'quoted'", '"dq \\x41\\u00e9\\U0001F600"', "a # comment", "ab:cd", "-", "!", "x!y",
  ];
  it.each(scalars)("reads the plain scalar %j as the yaml package does", (scalar) => {
    const text = `value: ${scalar}\n`;
    const fast = fastParse(text);
    if (fast !== undefined) expect(fast.value).toEqual(slow(text));
  });

  const unsure = {
    anchor: "a: &x 1\nb: 2\n",
    alias: "a: &x [1]\nb: *x\n",
    merge: "base: &b { x: 1 }\nzone:\n  <<: *b\n  y: 2\n",
    "inline merge": "zone:\n  <<: { x: 1 }\n  y: 2\n",
    "explicit core tag": "a: !!int 12\n",
    "tagged empty node": "a: !\nb: !!str\n",
    "collection as a key": "a: {[b, c]: 1}\n",
    "collection as a key without a value": "a: {{b}}\n",
    "null key": "a:\n  null: 1\n",
    "block scalar with an indentation indicator": "a: |2\n    \n",
    "block scalar keeping its line breaks": "a: |+\n  \n  ",
    "local tag": "a: !thing 12\n",
    "YAML 1.1 directive": "%YAML 1.1\n---\na: yes\n",
    "YAML 1.1 directive after a byte order mark": "\uFEFF%YAML 1.1\n---\na: yes\n",
    "duplicate key": "a: 1\na: 2\n",
    "syntax error": "a: [1, 2\n",
    "two documents": "a: 1\n---\nb: 2\n",
    "deep nesting": `${"[".repeat(80)}${"]".repeat(80)}\n`,
    tab: "a:\n\tb: 1\n",
  };
  it.each(Object.entries(unsure))("leaves %s to the yaml package", (_, text) => {
    expect(fastParse(text)).toBeUndefined();
  });

  it("reads explicit !!str, !!map and !!seq as the yaml package does", () => {
    const text = "a: !!str 12\nb: !!map { c: 1 }\nd: !!seq [1]\n";
    expect(fastParse(text)?.value).toEqual(slow(text));
  });

  it("never disagrees with the yaml package on 20 000 generated files (seeded)", () => {
    const scalars = ["1", "-1", "+1", "0x1F", "0o7", "07", "00", "-0", "1.5", ".5", "0.", "1e3", "1e", "1_000", "0b1", ".inf", ".NaN", "~", "null", "Null", "",
      "true", "True", "yes", "on", "'q'", '"d\\x41"', '"\\u00e9"', '"\\N"', "é", "a\tb", "a b", "a:b", "1:2", "a #c", "-", "- x", "? x", "!x y", "!!str 1",
      "&a 1", "*a", "|\n  lit\n", ">\n  fold\n  ed\n", "|-\n  x\n", "[1, 2]", "{a: 1}", "[a, {b: c}]", "'it''s'", "[a]", "a]", "{a", "2001-12-14",
      "12:30", "@x", "%x", "[]", "{}", '""', "'multi\n  line'", '"multi\n  line"', "plain\n  continued", "---", "...",
      "|+\n  x\n", "|2\n    x\n", ">+\n  x\n\n", "|-\n  x\n   \n", "{[a, b]}", "{{a}}", "{[]: 1}", "[a, [b]]", "{a: {b: [c]}}", "{~: 1}", "{null}"];
    const keys = ["a", "b", "'k'", '"k"', "1", "true", "null", "<<", "? c", "a b", "__proto__", "x:y", "[k]", "{k: v}"];
    let seed = 18;
    const pick = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const node = (depth: number, indent: number): string => {
      const pad = " ".repeat(indent + 2);
      switch (pick(depth > 2 ? 1 : 4)) {
        case 0:
          return ` ${scalars[pick(scalars.length)]!.replace(/\n/g, `\n${pad}`)}`;
        case 1:
          return Array.from({ length: 1 + pick(3) }, () => `\n${pad}${keys[pick(keys.length)]}:${node(depth + 1, indent + 2)}`).join("");
        case 2:
          return Array.from({ length: 1 + pick(3) }, () => `\n${pad}-${node(depth + 1, indent + 2)}`).join("");
        default:
          return ` {${keys[pick(3)]}: ${scalars[pick(5)]}}`;
      }
    };
    let read = 0;
    for (let i = 0; i < 20_000; i++) {
      let text = Array.from({ length: 1 + pick(3) }, () => `${keys[pick(keys.length)]}:${node(0, 0)}${["\n", " # c\n", "\t\n", "  \n"][pick(4)]}`).join("");
      if (pick(5) === 0) text = text.replace(/\n/g, "\r\n");
      if (pick(9) === 0) text = `---\n${text}${pick(2) ? "...\n" : ""}`;
      const fast = fastParse(text);
      if (fast === undefined) continue;
      read++;
      const doc = parseDocument(text, OPTIONS);
      const clean = doc.errors.length === 0 && doc.warnings.length === 0;
      expect(clean, text).toBe(true);
      expect(fast.value, text).toEqual(doc.toJS({ maxAliasCount: 100 }));
    }
    expect(read).toBeGreaterThan(4_000);
  });
});
