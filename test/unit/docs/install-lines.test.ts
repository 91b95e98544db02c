// The install instructions are true: every install line in README.md, docs/ and examples/ (`npm install
// … zoneform…`, `npx …`, `uses: …`, `git clone …`) names only a git ref the repository has as a tag or a
// branch (`git tag --list`, `git for-each-ref refs/heads refs/remotes`, asked here, so a clone without them passes
// only while no ref is named) and only the version package.json names. And the CHANGELOG's latest section is that
// version, with its date.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../../..");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { name: string; version: string };

/** README.md, docs/**\/*.md and every text file under examples/. */
function documents(): string[] {
  const under = (dir: string) =>
    readdirSync(join(ROOT, dir), { recursive: true, encoding: "utf8" })
      .map((f) => join(dir, f))
      .filter((f) => statSync(join(ROOT, f)).isFile());
  return ["README.md", ...under("docs").filter((f) => f.endsWith(".md")), ...under("examples")].sort();
}

export interface InstallLine {
  file: string;
  line: number;
  text: string;
}

/** The lines that install or run a package: `npm install|i|add|ci …`, `npx …`, `uses: …`, `git clone …`. */
export function installLines(file: string, text: string): InstallLine[] {
  return text
    .split("\n")
    .map((t, i) => ({ file, line: i + 1, text: t }))
    .filter(
      (l) =>
        /\bnpm\s+(?:install|i|add|ci)\b/.test(l.text) ||
        /\bnpx\s+\S/.test(l.text) ||
        /\bgit\s+clone\s+(?:-\S+\s+)*(?:\S+:\/\/|git@|\S+\.git\b)/.test(l.text) ||
        /^\s*(?:-\s*)?uses:\s/.test(l.text),
    );
}

export interface Pin {
  kind: "ref" | "version";
  value: string;
}

/**
 * What a line pins of zoneform: git refs (`…zoneform.git#REF`, `zoneform/zoneform@REF`, `git clone --branch REF
 * …zoneform.git`) and versions (`zoneform@V`, `zoneform-V.tgz`).
 */
export function pinsOf(text: string, name = pkg.name): Pin[] {
  const pins: Pin[] = [];
  const repo = String.raw`(?:git\+https://github\.com/|github:|git@github\.com:|https://github\.com/)?${name}/${name}(?:\.git)?`;
  for (const m of text.matchAll(new RegExp(String.raw`${repo}#([^\s\`'")]+)`, "g")))
    pins.push({ kind: "ref", value: m[1]! });
  for (const m of text.matchAll(new RegExp(String.raw`uses:\s*${name}/${name}(?:/[^@\s]*)?@([^\s\`'")]+)`, "g")))
    pins.push({ kind: "ref", value: m[1]! });
  for (const m of text.matchAll(
    new RegExp(String.raw`git\s+clone\s(?:[^;&|\n]*\s)?(?:--branch[=\s]|-b\s)\s*([^\s\`'")]+)[^;&|\n]*${repo}`, "g"),
  ))
    pins.push({ kind: "ref", value: m[1]! });
  // `zoneform@1.2.3` as an npm spec (not `zoneform/zoneform@ref`, not an e-mail address).
  for (const m of text.matchAll(new RegExp(String.raw`(?<![\w./-])${name}@([^\s\`'")/]+)`, "g")))
    pins.push({ kind: "version", value: m[1]! });
  // The tarball `npm pack` writes: `zoneform-1.2.3.tgz`.
  for (const m of text.matchAll(new RegExp(String.raw`(?<![\w.-])${name}-(\d[^\s\`'")/]*?)\.tgz`, "g")))
    pins.push({ kind: "version", value: m[1]! });
  return pins;
}

/** What is wrong with the pins of `lines`, given the repository's tags and branches and package.json's version. */
export function problems(
  lines: readonly InstallLine[],
  tags: ReadonlySet<string>,
  version: string,
  branches: ReadonlySet<string> = new Set(),
): string[] {
  const out: string[] = [];
  for (const l of lines) {
    for (const pin of pinsOf(l.text)) {
      if (pin.kind === "ref" && !tags.has(pin.value) && !branches.has(pin.value)) {
        out.push(
          `${l.file}:${l.line}: git ref "${pin.value}" is not a tag or branch of this repository (tags: ` +
            `${[...tags].join(", ") || "none"}; branches: ${[...branches].join(", ") || "none"})`,
        );
      }
      if (pin.kind === "version" && pin.value !== version) {
        out.push(`${l.file}:${l.line}: version "${pin.value}" is not package.json's ${version}`);
      }
    }
  }
  return out;
}

/** The repository's tags; none when this is not a git checkout (an unpacked tarball). */
function repositoryTags(): Set<string> {
  try {
    const text = execFileSync("git", ["tag", "--list"], {
      cwd: ROOT,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
    return new Set(
      text
        .split("\n")
        .map((t) => t.trim())
        .filter(Boolean),
    );
  } catch {
    return new Set();
  }
}

/**
 * The repository's branches, local and remote-tracking (`origin/main` counts as `main`); none outside a git checkout.
 */
function repositoryBranches(): Set<string> {
  try {
    const text = execFileSync("git", ["for-each-ref", "--format=%(refname)", "refs/heads", "refs/remotes"], {
      cwd: ROOT,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
    return new Set(
      text
        .split("\n")
        .map((r) =>
          r
            .trim()
            .replace(/^refs\/heads\//, "")
            .replace(/^refs\/remotes\/[^/]+\//, ""),
        )
        .filter((b) => b !== "" && b !== "HEAD"),
    );
  } catch {
    return new Set();
  }
}

/** The CHANGELOG's sections (`## …` headings) and what each holds, in order. */
export function changelogSections(text: string): Array<{ heading: string; body: string }> {
  const parts = text.split(/^## +/m).slice(1);
  return parts.map((p) => {
    const nl = p.indexOf("\n");
    return { heading: (nl === -1 ? p : p.slice(0, nl)).trim(), body: nl === -1 ? "" : p.slice(nl + 1) };
  });
}

/**
 * The problem with the CHANGELOG's latest section, or undefined: it must be `version - YYYY-MM-DD`, under an empty
 * Unreleased at most.
 */
export function changelogProblem(text: string, version: string): string | undefined {
  const sections = changelogSections(text);
  let i = 0;
  if (/^\[?unreleased\]?$/i.test(sections[0]?.heading ?? "")) {
    if (sections[0]!.body.trim() !== "")
      return (
        `the Unreleased section lists changes: they belong under ${version}, or ${version} is not the ` +
        `latest version`
      );
    i = 1;
  }
  const latest = sections[i]?.heading;
  if (latest === undefined) return "the CHANGELOG has no version section";
  const m = /^\[?(\S+?)\]? +[-–] +(\d{4}-\d{2}-\d{2})$/.exec(latest);
  if (!m) return `the latest section "${latest}" is not "${version} - YYYY-MM-DD"`;
  if (m[1] !== version) return `the latest section is ${m[1]}, package.json says ${version}`;
  const date = new Date(`${m[2]}T00:00:00Z`);
  if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== m[2])
    return `the latest section's date ${m[2]} is not a date`;
  return undefined;
}

describe("install lines in README.md, docs/ and examples/", () => {
  const lines = documents().flatMap((f) => installLines(f, readFileSync(join(ROOT, f), "utf8")));

  it(
    "are found: the tarball installs of README.md, and the git clones or the Action in every CI recipe " +
      "and docs/ci.md",
    () => {
      const tarballs = lines.filter((l) => pinsOf(l.text).some((p) => p.kind === "version") && l.text.includes(".tgz"));
      expect(tarballs.map((l) => l.file)).toContain("README.md");
      const gitInstalls = lines.filter(
        (l) =>
          l.text.includes(`github.com/${pkg.name}/${pkg.name}`) ||
          pinsOf(l.text).some((p) => p.kind === "ref" && l.text.includes("uses:")),
      );
      expect(gitInstalls.map((l) => l.file)).toEqual(
        expect.arrayContaining([
          // Every recipe (the GitLab recipe's note script, gitlab-reviewed-plan.mjs, installs nothing).
          ...readdirSync(join(ROOT, "examples/ci"))
            .filter((f) => !f.endsWith(".mjs"))
            .map((f) => join("examples/ci", f)),
          join("docs", "ci.md"),
        ]),
      );
    },
  );

  it("name only git refs the repository has as tags or branches, and only package.json's version", () => {
    expect(problems(lines, repositoryTags(), pkg.version, repositoryBranches())).toEqual([]);
  });

  it("would be caught naming a tag the repository does not have, or another version", () => {
    const bad = [
      {
        file: "x.md",
        line: 1,
        text: `npm install --save-dev git+https://github.com/${pkg.name}/${pkg.name}.git#v0.0.0-none`,
      },
      { file: "x.md", line: 2, text: `npx ${pkg.name}@0.0.0-none --help` },
      { file: "x.yml", line: 3, text: `      - uses: ${pkg.name}/${pkg.name}@v0.0.0-none` },
      {
        file: "x.md",
        line: 4,
        text: `npm install git+https://github.com/${pkg.name}/${pkg.name}.git   # the default branch`,
      },
      { file: "x.md", line: 5, text: `npm install --global ./${pkg.name}-0.0.0-none.tgz` },
      {
        file: "x.md",
        line: 6,
        text: `git clone --quiet -b v0.0.0-none https://github.com/${pkg.name}/${pkg.name}.git`,
      },
    ];
    expect(problems(bad, new Set(["v1.0.0"]), pkg.version, new Set(["main"]))).toEqual([
      `x.md:1: git ref "v0.0.0-none" is not a tag or branch of this repository (tags: v1.0.0; branches: main)`,
      `x.md:2: version "0.0.0-none" is not package.json's ${pkg.version}`,
      `x.yml:3: git ref "v0.0.0-none" is not a tag or branch of this repository (tags: v1.0.0; branches: main)`,
      `x.md:5: version "0.0.0-none" is not package.json's ${pkg.version}`,
      `x.md:6: git ref "v0.0.0-none" is not a tag or branch of this repository (tags: v1.0.0; branches: main)`,
    ]);
    expect(problems(bad.slice(0, 1), new Set(["v0.0.0-none"]), pkg.version)).toEqual([]);
    const action = [{ file: "x.yml", line: 1, text: `      - uses: ${pkg.name}/${pkg.name}@main` }];
    expect(problems(action, new Set(), pkg.version, new Set(["main"]))).toEqual([]);
    expect(problems(action, new Set(), pkg.version, new Set(["trunk"]))).toHaveLength(1);
  });

  it("are lines that install or run something, not mentions in prose", () => {
    expect(
      installLines(
        "x",
        "npm install && npm run demo\nread the README\n  - uses: actions/checkout@v4\nnpx zoneform --help\n" +
          "git clone the repository\n  - git clone https://github.com/zoneform/zoneform.git src",
      ).map((l) => l.line),
    ).toEqual([1, 3, 4, 6]);
  });
});

describe("CHANGELOG.md", () => {
  it("its latest section is package.json's version, with its date", () => {
    expect(changelogProblem(readFileSync(join(ROOT, "CHANGELOG.md"), "utf8"), pkg.version)).toBeUndefined();
  });

  it("would be caught listing changes under Unreleased, or naming another version or no date", () => {
    const v = pkg.version;
    expect(changelogProblem(`# C\n\n## [Unreleased]\n\n### Added\n- x\n\n## ${v} - 2026-11-25\n`, v)).toMatch(
      /Unreleased section lists changes/,
    );
    expect(changelogProblem(`# C\n\n## [Unreleased]\n\n## [${v}] - 2026-11-25\n- x\n`, v)).toBeUndefined();
    expect(changelogProblem(`# C\n\n## 0.0.0-other - 2026-11-25\n`, v)).toMatch(/latest section is 0\.0\.0-other/);
    expect(changelogProblem(`# C\n\n## ${v}\n`, v)).toMatch(/is not "/);
    expect(changelogProblem(`# C\n\n## ${v} - 2026-02-30\n`, v)).toMatch(/is not a date/);
  });
});
