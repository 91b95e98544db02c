// docs/contributing.md's "Adding a section", followed as written: in a copy of the repository's last
// commit (node_modules linked), each `<!-- walkthrough: PATH -->` block is written to PATH, and a
// `<!-- walkthrough: PATH LIST -->` block's two lines (an import, an entry) are added to that list
// of PATH; then `npm run generate`, the type check, the new section's test and lint (on the files written) pass, and git shows
// changes only in the new folders, the two lists and the generated files. Slow (a whole build and
// the docs' samples): a soak test.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const BLOCK = /<!-- walkthrough: (\S+)(?: (\w+))? -->\n```\w*\n([\s\S]*?)```/g;

/** Where the walkthrough may change the copy: its folders, the two lists, the generated files. */
const EXPECTED = [
  /^src\/sections\/security_level\//,
  /^src\/emulator\/areas\/zone_settings\//,
  /^src\/sections\/registry\.ts$/,
  /^src\/emulator\/areas\/index\.ts$/,
  /^test\/unit\/sections\/security-level\.test\.ts$/,
  /^schemas\/zoneform\.schema(\.draft-07)?\.json$/,
  /^dist-action\/index\.js$/,
  /^docs\/.*\.md$/,
  /^README\.md$/,
];

function addToList(text: string, list: string, lines: string[]): string {
  const [importLine, entry] = lines;
  const imports = [...text.matchAll(/^import [^;]*;$/gm)];
  const last = imports.at(-1)!;
  const afterImports = last.index + last[0].length;
  const out = `${text.slice(0, afterImports)}\n${importLine}${text.slice(afterImports)}`;
  const open = new RegExp(`const ${list}\\b[^=]*= \\[`).exec(out);
  if (!open) throw new Error(`no list ${list}`);
  const close = out.indexOf("]", open.index + open[0].length);
  const before = out.slice(0, close);
  // As a person adds it: a line of its own in a list written one entry a line, else after the last entry.
  if (/\n\s*$/.test(before)) return `${before}  ${entry},\n${out.slice(close)}`;
  return `${before.replace(/,?\s*$/, "")}, ${entry}${out.slice(close)}`;
}

const dir = mkdtempSync(join(tmpdir(), "zoneform-walkthrough-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(cmd: string, args: string[]) {
  const r = spawnSync(cmd, args, { cwd: dir, encoding: "utf8", env: { ...process.env, ZONEFORM_SOAK: "" } });
  return { status: r.status, out: `${r.stdout}\n${r.stderr}`.slice(-4000) };
}

describe("docs/contributing.md: adding a section", () => {
  it("is the folders and the two list lines, and everything passes", { timeout: 900_000 }, () => {
    const doc = readFileSync(join(ROOT, "docs/contributing.md"), "utf8");
    const blocks = [...doc.matchAll(BLOCK)];
    expect(blocks.length).toBeGreaterThan(5);

    execFileSync("sh", ["-c", `git archive HEAD | tar -x -C "${dir}"`], { cwd: ROOT });
    symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
    const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, encoding: "utf8" });
    git("init", "-q", "-b", "main");
    git("add", "-A");
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "base");

    for (const [, path, list, body] of blocks) {
      const file = join(dir, path!);
      if (list) writeFileSync(file, addToList(readFileSync(file, "utf8"), list, body!.trim().split("\n")));
      else {
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, body!);
      }
    }

    for (const [cmd, args] of [
      ["npm", ["run", "generate"]],
      ["npm", ["run", "typecheck"]],
      [
        "npx",
        [
          "vitest",
          "run",
          "test/unit/sections/security-level.test.ts",
          "test/unit/sections/schema.test.ts",
          "test/unit/architecture",
          "test/unit/docs/config-keys.test.ts",
          "test/unit/docs/architecture.test.ts",
        ],
      ],
    ] as const) {
      const r = run(cmd, [...args]);
      expect({ step: `${cmd} ${args.join(" ")}`, status: r.status, out: r.status ? r.out : "" }).toEqual({
        step: `${cmd} ${args.join(" ")}`,
        status: 0,
        out: "",
      });
    }

    const changed = git("status", "--porcelain", "-uall")
      .split("\n")
      .filter(Boolean)
      .map((l) => l.slice(3));
    // Lint (Biome, as `npm run lint`) on what the walkthrough wrote: the rest is the commit's own.
    const written = changed.filter((p) => /^(src|test)\/.*\.(ts|json)$/.test(p));
    const lint = run("npx", ["biome", "check", ...written]);
    expect({ status: lint.status, out: lint.status ? lint.out : "" }).toEqual({ status: 0, out: "" });
    expect(changed.filter((p) => !EXPECTED.some((re) => re.test(p)))).toEqual([]);
    expect(changed).toContain("schemas/zoneform.schema.json");
    expect(changed).toContain("docs/configuration.md");
    const reference = readFileSync(join(dir, "docs/configuration.md"), "utf8");
    expect(reference).toContain("<!-- keys:security_level -->\n| key | type | meaning |");
  });
});
