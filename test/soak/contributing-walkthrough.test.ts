// docs/contributing.md's "Adding a section", followed as written: in a copy of the repository's last
// commit (a git repository of its own, node_modules hard-linked in), each `<!-- walkthrough: PATH -->` block is
// written to PATH, and a `<!-- walkthrough: PATH LIST -->` block's two lines (an import, an entry) are
// added to that list of PATH; then `npm run generate` passes, git shows changes only in the new
// folders, the two lists and the generated files, and, once they are committed (as step 8 says), the
// type check, the whole `npm run lint` and the whole `npm test` pass: nothing else needs an edit for
// a new section. Slow (a whole build, the docs' samples and the whole suite): a soak test.
import { execFileSync, spawnSync } from "node:child_process";
import {
  copyFileSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
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
  /^test\/sections\/security_level\//,
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

/**
 * A copy of the folder `from` at `to` whose files are hard links (copies where a link cannot be made):
 * node_modules as a real folder of the copy, as in a checkout. Linked as a whole folder, the build and
 * Node would name its files by where they really are, outside the copy (esbuild's `// node_modules/…`
 * comments, which test/e2e/loaded-modules.test.ts reads, and the Action's bundle). The entries named in
 * `leaveOut` (caches: the copy's runs keep their own) are not copied.
 */
function linkTree(from: string, to: string, leaveOut: readonly string[] = []): void {
  mkdirSync(to);
  for (const e of readdirSync(from, { withFileTypes: true })) {
    const [source, target] = [join(from, e.name), join(to, e.name)];
    if (leaveOut.includes(e.name)) continue;
    if (e.isDirectory()) linkTree(source, target);
    else if (e.isSymbolicLink()) symlinkSync(readlinkSync(source), target);
    else {
      try {
        linkSync(source, target);
      } catch {
        copyFileSync(source, target);
      }
    }
  }
}

const dir = mkdtempSync(join(tmpdir(), "zoneform-walkthrough-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The environment of the copy's commands: this run's, less what makes it a soak run or a vitest worker. */
const ENV = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => k !== "ZONEFORM_SOAK" && !k.startsWith("VITEST")),
);

/** Runs a command in the copy (bounded), with what it printed when it failed: its failures, then its end. */
function run(cmd: string, args: string[]) {
  const r = spawnSync(cmd, args, { cwd: dir, encoding: "utf8", env: ENV, timeout: 600_000, maxBuffer: 64 << 20 });
  const out = `${r.stdout}\n${r.stderr}`;
  const failures = out.split("\n").filter((l) => /\bFAIL\b/.test(l));
  return { status: r.status ?? r.signal, out: `${failures.join("\n").slice(0, 4000)}\n…\n${out.slice(-4000)}` };
}

/** Runs a step, expecting it to pass; the step's name and output make the failure's message. */
function pass(cmd: string, args: string[]) {
  const step = `${cmd} ${args.join(" ")}`;
  const r = run(cmd, args);
  expect({ step, status: r.status, out: r.status === 0 ? "" : r.out }).toEqual({ step, status: 0, out: "" });
}

describe("docs/contributing.md: adding a section", () => {
  it("is the folders and the two list lines, and everything passes", { timeout: 900_000 }, () => {
    const doc = readFileSync(join(ROOT, "docs/contributing.md"), "utf8");
    const blocks = [...doc.matchAll(BLOCK)];
    expect(blocks.length).toBeGreaterThan(5);

    execFileSync("sh", ["-c", `git archive HEAD | tar -x -C "${dir}"`], { cwd: ROOT });
    linkTree(realpathSync(join(ROOT, "node_modules")), join(dir, "node_modules"), [".vite", ".cache"]);
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

    pass("npm", ["run", "generate"]);

    const changed = git("status", "--porcelain", "-uall")
      .split("\n")
      .filter(Boolean)
      .map((l) => l.slice(3));
    expect(changed.filter((p) => !EXPECTED.some((re) => re.test(p)))).toEqual([]);
    expect(changed).toContain("schemas/zoneform.schema.json");
    expect(changed).toContain("docs/configuration.md");
    expect(changed).toContain("test/sections/security_level/write-body.case.ts");
    expect(changed).toContain("test/sections/security_level/unmet.case.ts");
    const reference = readFileSync(join(dir, "docs/configuration.md"), "utf8");
    expect(reference).toContain("<!-- keys:security_level -->\n| key | type | meaning |");

    // Step 8: commit what changed (test/unit/action-bundle.test.ts compares the bundle with HEAD's).
    git("add", "-A");
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "security_level");
    pass("npm", ["run", "typecheck"]);
    pass("npm", ["run", "lint"]);
    pass("npm", ["test"]);
  });
});
