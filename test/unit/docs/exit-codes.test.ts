// Every exit code is listed once, in docs/commands/README.md ("Exit codes"): the codes of EXIT
// (src/errors.ts) and any other code the CLI sets are in that table and nothing else is; no other page
// of the docs holds a table of them; and each code is asserted as an exit code by at least one test.
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../../src/errors.js";

const ROOT = resolve(import.meta.dirname, "../../..");
const read = (p: string) => readFileSync(join(ROOT, p), "utf8");

function filesUnder(dir: string, ext: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(ext))
    .map((f) => join(dir, f));
}

/** The codes of the table between the exit-codes markers. */
export function tableCodes(markdown: string): number[] {
  const m = /<!-- section:exit-codes -->([\s\S]*?)<!-- \/section:exit-codes -->/.exec(markdown);
  if (!m) throw new Error("no <!-- section:exit-codes --> in docs/commands/README.md");
  return [...m[1]!.matchAll(/^\| (\d+) \|/gm)].map((r) => Number(r[1]));
}

/** Exit codes the CLI's sources set as literals (process.exit(N), process.exitCode = N, EXIT.x). */
function codesInSources(): number[] {
  const named = EXIT as Record<string, number>;
  const out = new Set<number>();
  for (const file of filesUnder("src", ".ts")) {
    const text = read(file);
    for (const [, n] of text.matchAll(/process\.exit\((\d+)\)/g)) out.add(Number(n));
    for (const [, n] of text.matchAll(/exitCode\s*=\s*(\d+)\b/g)) out.add(Number(n));
    for (const [, k] of text.matchAll(/\bEXIT\.(\w+)/g)) {
      if (named[k!] === undefined) throw new Error(`${file}: EXIT.${k} is not in src/errors.ts`);
      out.add(named[k!]!);
    }
  }
  return [...out];
}

const EXIT_NAME = new Map(Object.entries(EXIT).map(([k, v]) => [v as number, k]));

/** Whether some test asserts `code` as an exit code. */
function assertedByATest(code: number, tests: readonly string[]): string | undefined {
  const name = EXIT_NAME.get(code);
  const value = name ? `(?:${code}|EXIT\\.${name})` : String(code);
  const patterns = [
    new RegExp(`\\.(?:code|exitCode|status)\\b[^;\\n]*?\\)\\.toBe\\(${value}\\)`),
    new RegExp(`expectFailure\\([^,\\n]+, ${value}\\)`),
    new RegExp(`\\b(?:code|exitCode): ${value}\\b`),
  ];
  return tests.find((t) => patterns.some((p) => p.test(t)));
}

describe("exit codes", () => {
  const table = tableCodes(read("docs/commands/README.md"));

  it("the table lists every code of EXIT and every code the CLI sets, each once, and nothing else", () => {
    expect(new Set(table).size).toBe(table.length);
    const used = new Set([...Object.values(EXIT), ...codesInSources()]);
    expect([...table].sort((a, b) => a - b)).toEqual([...used].sort((a, b) => a - b));
  });

  it("no other page of README.md or docs/ lists them: they link to the table", () => {
    const pages = ["README.md", ...filesUnder("docs", ".md")].filter(
      (p) => p !== join("docs", "commands", "README.md"),
    );
    for (const page of pages) {
      const text = read(page);
      expect(text, page).not.toMatch(/^\| (?:124|130|143) \|/m);
      expect(text, page).not.toMatch(/Exit codes?: \d/);
    }
    expect(read("README.md")).toContain("(docs/commands/README.md#exit-codes)");
  });

  it("every code is asserted as an exit code by at least one test", () => {
    const tests = filesUnder("test", ".ts")
      .filter((f) => !f.endsWith("exit-codes.test.ts"))
      .map(read);
    const missing = table.filter((code) => !assertedByATest(code, tests));
    expect(missing).toEqual([]);
  });
});
