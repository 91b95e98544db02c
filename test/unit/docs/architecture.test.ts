// docs/architecture.md names only paths that exist and mentions every top-level folder of src/.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../../..");
const text = readFileSync(join(ROOT, "docs/architecture.md"), "utf8");

/** Every `code span` that looks like a repository path (has a slash or a known file ending). */
function pathsNamed(markdown: string): string[] {
  const spans = [...markdown.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]!);
  return spans.filter(
    (s) => /^(src|test|docs|schemas|scripts|examples|dist-action)\//.test(s) || /\.(ts|md|json|yml)$/.test(s),
  );
}

/** Where a path the page names is read from: as given, else under src/ (folders of the layers table). */
function resolvePath(p: string): string | undefined {
  const bare = p.replace(/\/$/, "");
  for (const candidate of [bare, join("src", bare), join("src/engine", bare), join("src/sections", bare)]) {
    if (existsSync(join(ROOT, candidate))) return candidate;
  }
  return undefined;
}

describe("docs/architecture.md", () => {
  it("names only paths that exist", () => {
    // A bare file name stands for the one every section folder has (types.ts, rules.ts, schema.json).
    const inSections = (p: string) => readdirSync(join(ROOT, "src/sections/page_shield")).includes(p);
    const missing = pathsNamed(text).filter((p) => !p.includes("<") && resolvePath(p) === undefined && !inSections(p));
    expect(missing).toEqual([]);
  });

  it("mentions every top-level folder of src/", () => {
    const folders = readdirSync(join(ROOT, "src"), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
    expect(folders.filter((f) => !text.includes(`\`${f}/\``))).toEqual([]);
  });
});
