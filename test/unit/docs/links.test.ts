// Every relative link in README.md and docs/**/*.md resolves: to a file or folder that exists and, when
// it names an anchor in a Markdown file, to a heading of that file (GitHub's anchor for it).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../../..");

function markdownFiles(): string[] {
  const docs = readdirSync(join(ROOT, "docs"), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".md"));
  return ["README.md", ...docs.map((f) => join("docs", f))].sort();
}

/** The text outside fenced code blocks and inline code, where Markdown links are links. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "``");
}

/** GitHub's anchors for the headings of a Markdown file (a repeated heading gets -1, -2, …). */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const [, heading] of text.replace(/^```[\s\S]*?^```/gm, "").matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = heading!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  // Explicit anchors: <a id="…"> / <a name="…">.
  for (const [, id] of text.matchAll(/<a (?:id|name)="([^"]+)"/g)) out.add(id!);
  return out;
}

const files = markdownFiles();

describe("links in README.md and docs/", () => {
  it("finds the docs", () => {
    expect(files).toEqual(
      expect.arrayContaining(["README.md", "docs/configuration.md", "docs/commands/README.md", "docs/emulator.md"]),
    );
  });

  it("computes GitHub's anchors", () => {
    expect([
      ...anchors("# A `b` c\n## `custom_hostnames`: what is owned\n## A b c\n```\n# not a heading\n```\n"),
    ]).toEqual(["a-b-c", "custom_hostnames-what-is-owned", "a-b-c-1"]);
  });

  for (const file of files) {
    it(`${file}: every relative link resolves`, () => {
      const text = readFileSync(join(ROOT, file), "utf8");
      const broken: string[] = [];
      for (const [, raw] of prose(text).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
        const target = raw!;
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, …
        const [pathPart, anchor] = target.split("#", 2) as [string, string | undefined];
        const path = pathPart === "" ? join(ROOT, file) : resolve(ROOT, dirname(file), decodeURIComponent(pathPart));
        if (!path.startsWith(ROOT) || !existsSync(path)) {
          broken.push(`${target} (no ${relative(ROOT, path)})`);
          continue;
        }
        if (
          anchor !== undefined &&
          statSync(path).isFile() &&
          path.endsWith(".md") &&
          !anchors(readFileSync(path, "utf8")).has(anchor)
        ) {
          broken.push(`${target} (no heading #${anchor} in ${relative(ROOT, path)})`);
        }
      }
      expect(broken).toEqual([]);
    });
  }
});
