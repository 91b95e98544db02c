// The recipes in examples/ci work as written, as far as a test can tell without a CI service: each file
// parses (crontab: five schedule fields and a command per line). The GitHub workflows use the zoneform
// Action (action.yml) with only inputs it has and read only outputs it sets, and every other action
// they use is an actions/* (or github/codeql-action) major that runs on Node 24. The GitLab and cron
// recipes run the CLI: every `zoneform …` names a command, flags and arguments the program has, and
// they install zoneform from this repository's git URL, the default branch (no release is tagged yet;
// test/unit/docs/install-lines.test.ts checks that any ref named is a tag or a branch) (never from the
// npm registry, where there is no zoneform, nor with `npm install --global` from git, which runs
// `prepare` without the devDependencies: npm/cli#8440). Every apply is of a reviewed plan (`apply PLAN
// --expect-digest`), no zoneform exit code is thrown away with `|| true`, and the comment marker the
// recipes look for is the one the markdown plan starts with.
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { parse, parseDocument } from "yaml";
import { describe, expect, it } from "vitest";
import { memoryIO } from "../../src/cli/io.js";
import { buildProgram } from "../../src/cli/program.js";
import { COMMENT_MARKER } from "../../src/plan/render/markdown.js";

const ROOT = resolve(import.meta.dirname, "../..");
const DIR = resolve(ROOT, "examples/ci");
const PKG = JSON.parse(readFileSync(resolve(ROOT, "package.json"), "utf8")) as {
  version: string;
  repository: { url: string };
};
/** What every recipe installs: this repository's default branch, from git. */
const PINNED = PKG.repository.url;

const program = await buildProgram({ io: memoryIO().io, setExit: () => undefined });

interface Step {
  id?: string;
  if?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
}

interface Recipe {
  file: string;
  text: string;
  /** The steps of every job of a GitHub Actions workflow (none for the others). */
  steps: Step[];
  /** The shell scripts the file runs (workflow `run:`, GitLab `script:`, crontab commands). */
  scripts: string[];
  /** Commands written in comments for a person to run once (the crontab's install). */
  setup: string[];
}

// --- reading the recipes ----------------------------------------------------------------------------

function recipe(file: string): Recipe {
  const text = readFileSync(resolve(DIR, file), "utf8");
  if (file === "crontab")
    return {
      file,
      text,
      steps: [],
      scripts: crontabCommands(text),
      setup: [...text.matchAll(/^#\s+(npm .*)$/gm)].map((m) => m[1]!),
    };
  const doc = parseDocument(text);
  if (doc.errors.length > 0 || doc.warnings.length > 0)
    throw new Error(`${file}: ${[...doc.errors, ...doc.warnings].map((e) => e.message).join("; ")}`);
  const data = doc.toJS() as Record<string, unknown>;
  const steps =
    "jobs" in data ? Object.values(data.jobs as Record<string, { steps?: Step[] }>).flatMap((j) => j.steps ?? []) : [];
  return { file, text, steps, scripts: "jobs" in data ? githubScripts(data) : gitlabScripts(data), setup: [] };
}

/** The `run:` of every step of every job of a GitHub Actions workflow. */
function githubScripts(workflow: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const job of Object.values(workflow.jobs as Record<string, { steps?: Array<{ run?: string }> }>)) {
    for (const step of job.steps ?? []) if (typeof step.run === "string") out.push(step.run);
  }
  return out;
}

/** `before_script`, `script` and `after_script` of the top level, `default:` and every job of a .gitlab-ci.yml. */
function gitlabScripts(config: Record<string, unknown>): string[] {
  const out: string[] = [];
  const take = (holder: unknown) => {
    if (!holder || typeof holder !== "object") return;
    for (const key of ["before_script", "script", "after_script"]) {
      const v = (holder as Record<string, unknown>)[key];
      if (typeof v === "string") out.push(v);
      else if (Array.isArray(v)) out.push(v.map(String).join("\n")); // one shell runs a job's lines in order
    }
  };
  take(config);
  for (const value of Object.values(config)) take(value);
  return out;
}

/** A schedule field: numbers, `*`, ranges, lists and steps, or month/day names (`mon-fri`). */
const FIELD = String.raw`(?:[\d*][\d*,/-]*|[A-Za-z]{3}(?:[-,][A-Za-z]{3})*)`;
const CRON_LINE = new RegExp(
  String.raw`^\s*(?:(@(?:reboot|yearly|annually|monthly|weekly|daily|midnight|hourly))|((?:${FIELD}\s+){4}${FIELD}))\s+(\S.*)$`,
);

/** The command of each schedule line of a crontab; throws on a line that is not one. */
function crontabCommands(text: string): string[] {
  const out: string[] = [];
  for (const [n, line] of text.split("\n").entries()) {
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(line)) continue; // NAME=value: an environment line
    const m = CRON_LINE.exec(line);
    if (!m) throw new Error(`crontab:${n + 1}: not five schedule fields and a command: ${line}`);
    const command = m[3]!;
    // cron turns an unescaped % into a newline (and feeds the rest to stdin).
    if (/(^|[^\\])%/.test(command)) throw new Error(`crontab:${n + 1}: unescaped % in the command`);
    out.push(command);
  }
  return out;
}

// --- a small shell reader: enough for the recipes' scripts --------------------------------------------

/**
 * The simple commands of a shell script, as their words (quotes removed), including those inside
 * `$(…)`. Splits on `;`, `&`, `|`, `(`, `)` and newlines; `\`-newline continues a line; `#` at the start
 * of a word is a comment; a redirection (`> file`, `2>&1`) is left out of the words. GitHub's `${{ … }}`
 * expressions become one word.
 */
function shellCommands(script: string): string[][] {
  const s = script.replace(/\$\{\{[^}]*\}\}/g, "GHA_EXPRESSION");
  const commands: string[][] = [];
  let i = 0;
  const parse = (inSubstitution: boolean): void => {
    let words: string[] = [];
    let word: string | undefined;
    let redirect = false;
    const endWord = () => {
      if (word === undefined) return;
      if (redirect) redirect = false;
      else words.push(word);
      word = undefined;
    };
    const endCommand = () => {
      endWord();
      if (words.length > 0) commands.push(words);
      words = [];
      redirect = false;
    };
    while (i < s.length) {
      const c = s[i]!;
      if (c === "\\") {
        if (s[i + 1] !== "\n") word = (word ?? "") + (s[i + 1] ?? "");
        i += 2;
      } else if (c === "'") {
        const end = s.indexOf("'", i + 1);
        if (end < 0) throw new Error(`unclosed ' in: ${script}`);
        word = (word ?? "") + s.slice(i + 1, end);
        i = end + 1;
      } else if (c === '"') {
        word = word ?? "";
        i++;
        while (i < s.length && s[i] !== '"') {
          if (s[i] === "\\") {
            word += s[i + 1] ?? "";
            i += 2;
          } else if (s.startsWith("$(", i)) {
            i += 2;
            parse(true);
            word += "$(…)";
          } else word += s[i++];
        }
        if (i >= s.length) throw new Error(`unclosed " in: ${script}`);
        i++;
      } else if (s.startsWith("$(", i)) {
        i += 2;
        parse(true);
        word = `${word ?? ""}$(…)`;
      } else if (c === "#" && word === undefined) {
        while (i < s.length && s[i] !== "\n") i++;
      } else if (c === ")" && inSubstitution) {
        i++;
        endCommand();
        return;
      } else if (c === " " || c === "\t") {
        endWord();
        i++;
      } else if (c === ">" || c === "<") {
        if (word !== undefined && /^\d+$/.test(word))
          word = undefined; // the fd of 2>
        else endWord();
        i++;
        while (s[i] === ">" || s[i] === "&" || s[i] === "|") i++;
        redirect = true;
      } else if (";&|()\n".includes(c)) {
        endCommand();
        i++;
      } else {
        word = (word ?? "") + c;
        i++;
      }
    }
    if (inSubstitution) throw new Error(`unclosed $( in: ${script}`);
    endCommand();
  };
  parse(false);
  return commands;
}

const KEYWORDS = new Set([
  "if",
  "then",
  "else",
  "elif",
  "fi",
  "do",
  "done",
  "while",
  "until",
  "!",
  "{",
  "}",
  "time",
  "exec",
]);

/** A command's words without the leading keywords and NAME=value assignments. */
function commandWords(words: string[]): string[] {
  let k = 0;
  while (k < words.length && (KEYWORDS.has(words[k]!) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[k]!))) k++;
  return words.slice(k);
}

/** The arguments of every zoneform invocation in the scripts. */
function zoneformCalls(scripts: string[]): string[][] {
  const calls: string[][] = [];
  for (const script of scripts) {
    for (const words of shellCommands(script)) {
      const [cmd, ...args] = commandWords(words);
      if (cmd === "zoneform" || cmd?.endsWith("/zoneform")) calls.push(args);
    }
  }
  return calls;
}

// --- checking an invocation against the program --------------------------------------------------------

interface Resolved {
  command: Command;
  path: string[];
  flags: string[];
  positionals: string[];
  problems: string[];
}

/** Resolves `zoneform ARGS` against the commander program: the command, its flags and its arguments. */
function resolveCall(args: string[]): Resolved {
  const problems: string[] = [];
  let command = program;
  const path: string[] = [];
  let k = 0;
  while (k < args.length && !args[k]!.startsWith("-")) {
    const sub = command.commands.find((c) => c.name() === args[k] || c.aliases().includes(args[k]!));
    if (!sub) break;
    command = sub;
    path.push(args[k]!);
    k++;
  }
  if (command === program) problems.push(`no command ${JSON.stringify(args[0] ?? "")}`);
  else if (command.commands.length > 0)
    problems.push(
      `\`zoneform ${path.join(" ")}\` is a group: it needs one of ${command.commands.map((c) => c.name()).join(", ")}`,
    );
  const flags: string[] = [];
  const positionals: string[] = [];
  for (; k < args.length; k++) {
    const arg = args[k]!;
    if (!arg.startsWith("-") || arg === "-") {
      positionals.push(arg);
      continue;
    }
    const name = arg.split("=")[0]!;
    flags.push(name);
    if (name === "--help" || name === "-h") continue;
    const option = command.options.find((o) => o.long === name || o.short === name);
    if (!option) {
      problems.push(`\`zoneform ${path.join(" ")}\` has no option ${name}`);
      continue;
    }
    if (option.required && !arg.includes("=")) {
      const value = args[++k];
      if (value === undefined) problems.push(`${name} needs a value`);
      else if (option.argChoices && !option.argChoices.includes(value))
        problems.push(`${name} ${value}: not one of ${option.argChoices.join(", ")}`);
    }
  }
  if (command !== program && command.commands.length === 0) {
    const declared = command.registeredArguments;
    if (positionals.length > declared.length && !declared.some((a) => a.variadic))
      problems.push(
        `\`zoneform ${path.join(" ")}\` takes ${declared.length} argument(s), given ${positionals.join(" ")}`,
      );
    const required = declared.filter((a) => a.required).length;
    if (positionals.length < required) problems.push(`\`zoneform ${path.join(" ")}\` needs ${required} argument(s)`);
  }
  return { command, path, flags, positionals, problems };
}

// --- the Action and the actions the workflows use ---------------------------------------------------------

const ACTION = parse(readFileSync(resolve(ROOT, "action.yml"), "utf8")) as {
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
};
const ACTION_USES = /^zoneform\/zoneform@(\S+)$/;
/**
 * The first major of each action GitHub's own organisations publish that declares `runs.using:
 * node24` (GitHub removed Node 20 from its runners on 2026-09-16): checkout v5, setup-node v5, cache
 * v5, upload-artifact v6, download-artifact v7, github-script v8, codeql-action v4 (their releases).
 */
export const FIRST_NODE24_MAJOR: Record<string, number> = {
  "actions/checkout": 5,
  "actions/setup-node": 5,
  "actions/cache": 5,
  "actions/upload-artifact": 6,
  "actions/download-artifact": 7,
  "actions/github-script": 8,
  "github/codeql-action/upload-sarif": 4,
};

/** What is wrong with a step's `uses:` (an empty list when nothing is). */
export function usesProblems(uses: string): string[] {
  if (ACTION_USES.test(uses)) return [];
  const m = /^([\w.-]+\/[\w.-]+(?:\/[\w./-]+)?)@v(\d+)(?:\.\d+)*$/.exec(uses);
  if (!m) return [`${uses}: not an action this test knows the Node 24 major of`];
  const first = FIRST_NODE24_MAJOR[m[1]!];
  if (first === undefined) return [`${uses}: not an action this test knows the Node 24 major of`];
  return Number(m[2]) >= first ? [] : [`${uses}: runs on Node 20; v${first} is the first major on Node 24`];
}

/** The zoneform Action's steps of a workflow. */
function actionSteps(r: Recipe): Step[] {
  return r.steps.filter((s) => typeof s.uses === "string" && ACTION_USES.test(s.uses));
}

// --- the tests ------------------------------------------------------------------------------------------

const files = readdirSync(DIR)
  .filter((f) => !f.startsWith("."))
  .sort();

describe("examples/ci", () => {
  it("has the recipes the README lists", () => {
    expect(files).toEqual([
      "apply-on-merge.yml",
      "crontab",
      "gitlab-ci.yml",
      "nightly-drift.yml",
      "plan-on-pull-request.yml",
    ]);
  });

  describe.each(files)("%s", (file) => {
    const r = recipe(file);
    const calls = zoneformCalls(r.scripts);

    it("parses, and runs zoneform (the Action in a GitHub workflow, the CLI elsewhere)", () => {
      if (r.steps.length > 0) {
        expect(actionSteps(r).length).toBeGreaterThan(0);
        expect(calls, "a GitHub workflow runs zoneform through the Action").toEqual([]);
      } else {
        expect(r.scripts.length).toBeGreaterThan(0);
        expect(calls.length).toBeGreaterThan(0);
      }
    });

    it.skipIf(r.steps.length === 0)(
      "uses the Action with inputs it has, reads only outputs it sets, and only actions that run on Node 24",
      () => {
        const problems = r.steps.flatMap((s) => (s.uses ? usesProblems(s.uses) : []));
        expect(problems).toEqual([]);
        for (const step of actionSteps(r)) {
          for (const key of Object.keys(step.with ?? {}))
            expect(Object.keys(ACTION.inputs), `${r.file}: input ${key}`).toContain(key);
          const mode = step.with?.mode;
          if (mode !== undefined) expect(["plan", "apply", "drift", "audit"]).toContain(mode);
        }
        const ids = new Set(
          actionSteps(r)
            .map((s) => s.id)
            .filter(Boolean),
        );
        for (const m of r.text.matchAll(/steps\.([\w-]+)\.outputs\.([\w-]+)/g)) {
          expect(ids.has(m[1]!), `${r.file}: steps.${m[1]} is not a zoneform step with an id`).toBe(true);
          expect(Object.keys(ACTION.outputs), `${r.file}: output ${m[2]}`).toContain(m[2]);
        }
        expect(r.text).not.toMatch(/actions\/setup-node|npm install/);
      },
    );

    it("uses only commands, flags and arguments zoneform has", () => {
      const problems = calls.flatMap((args) =>
        resolveCall(args).problems.map((p) => `zoneform ${args.join(" ")}: ${p}`),
      );
      expect(problems).toEqual([]);
    });

    it.skipIf(r.steps.length > 0)(`installs zoneform from ${PINNED} (not the npm registry, not --global)`, () => {
      const npm = [...r.scripts.flatMap((s) => shellCommands(s)), ...r.setup.flatMap((s) => shellCommands(s))]
        .map(commandWords)
        .filter((w) => w[0] === "npm" || w[0] === "npx");
      const installs = npm.filter((w) => w[0] === "npm" && ["install", "i", "add"].includes(w[1]!));
      const pinned = installs.filter((w) => w.includes(PINNED) && w.includes("--prefix"));
      expect(pinned.length, "one `npm install --prefix DIR <git url>`").toBe(1);
      for (const w of installs) {
        expect(w.includes("--global") || w.includes("-g"), `npm ${w.slice(1).join(" ")}`).toBe(false);
        expect(
          w.some((a) => a === "zoneform" || a.startsWith("zoneform@")),
          `npm ${w.slice(1).join(" ")}: the registry`,
        ).toBe(false);
      }
      expect(
        npm.some((w) => w[0] === "npx" && w.some((a) => a.startsWith("zoneform"))),
        "npx zoneform: the registry",
      ).toBe(false);
      expect(r.text).not.toMatch(/npm (install|i) (--global|-g) zoneform\b/);
      // The folder installed into is put on PATH.
      const dir = pinned[0]![pinned[0]!.indexOf("--prefix") + 1]!;
      expect(r.text).toContain(`${dir}/node_modules/.bin`);
      // The top comment says what is installed, and how to pin it.
      expect(r.text.split("\n").slice(0, 15).join("\n")).toMatch(
        /has no release tag yet[\s\S]*add\s+(?:#\s+)?`#<commit>`/,
      );
    });

    it("applies only a reviewed plan, and keeps every zoneform exit code", () => {
      for (const args of calls) {
        const { path, flags, positionals } = resolveCall(args);
        if (path[0] === "apply") {
          expect(positionals, `zoneform ${args.join(" ")}: apply a saved plan`).toHaveLength(1);
          expect(flags, `zoneform ${args.join(" ")}`).toContain("--expect-digest");
        }
      }
      for (const script of r.scripts) expect(script).not.toMatch(/zoneform[^\n;&]*\|\|\s*true/);
    });

    it("looks for the plan comment by the marker the markdown plan starts with", () => {
      for (const m of r.text.matchAll(/<!--[^>]*zoneform[^>]*-->/g)) expect(m[0]).toBe(COMMENT_MARKER);
    });
  });

  it("the GitLab recipe creates or updates one plan comment, and drift runs once per job", () => {
    expect(recipe("gitlab-ci.yml").text).toContain(COMMENT_MARKER);
    const calls = zoneformCalls(recipe("crontab").scripts).map((a) => resolveCall(a).path[0]);
    expect(calls.filter((p) => p === "drift")).toHaveLength(1);
    expect(calls.filter((p) => p === "plan")).toHaveLength(0);
  });

  it(
    "the GitHub recipes: the plan of a pull request is uploaded unzipped; the merge applies it; the " +
      "nightly run drifts and audits to code scanning",
    () => {
      const pr = recipe("plan-on-pull-request.yml");
      expect(parse(pr.text).on).toHaveProperty("pull_request");
      expect(actionSteps(pr).map((s) => s.with?.mode ?? "(from the event)")).toEqual(["(from the event)"]);
      const upload = pr.steps.find((s) => s.uses?.startsWith("actions/upload-artifact@"));
      expect(upload?.with).toMatchObject({ path: "${{ steps.zoneform.outputs.plan-path }}", archive: false });
      const apply = recipe("apply-on-merge.yml");
      expect(parse(apply.text).on).toHaveProperty("push");
      expect(actionSteps(apply).map((s) => s.with?.mode ?? "(from the event)")).toEqual(["(from the event)", "apply"]);
      expect(actionSteps(apply)[1]!.with).toMatchObject({ digest: "${{ inputs.digest }}" });
      const nightly = recipe("nightly-drift.yml");
      expect(actionSteps(nightly).map((s) => s.with?.mode)).toEqual(["drift", "audit"]);
      expect(nightly.steps.find((s) => s.uses?.startsWith("github/codeql-action/upload-sarif@"))?.with).toMatchObject({
        sarif_file: "${{ steps.audit.outputs.sarif-path }}",
      });
      expect(nightly.text).toMatch(/security-events: write/);
    },
  );
});

describe("the recipe reader", () => {
  it("knows which actions run on Node 20", () => {
    expect(usesProblems("actions/checkout@v4")).toEqual([
      "actions/checkout@v4: runs on Node 20; v5 is the first major on Node 24",
    ]);
    expect(usesProblems("actions/upload-artifact@v5.0.0")).toHaveLength(1);
    expect(usesProblems("actions/github-script@v7")).toHaveLength(1);
    expect(usesProblems("actions/checkout@v6")).toEqual([]);
    expect(usesProblems("someone/else@v9")).toHaveLength(1);
    expect(usesProblems("zoneform/zoneform@main")).toEqual([]);
  });

  it(
    "finds zoneform in pipes, substitutions, continuations and after assignments, and skips redirections " +
      "and comments",
    () => {
      const script = [
        'code=0; DIGEST=$(zoneform show plan.json | sed -n "s/x//p") # zoneform nope',
        "X=1 zoneform drift -c zones/ \\",
        "  --shard ${{ matrix.shard }}/4 --format json > drift.json 2>&1 || code=$?",
        'echo "zoneform is not run here"; [ $code -eq 0 ] || { zoneform show "$F"; }',
      ].join("\n");
      expect(zoneformCalls([script])).toEqual([
        ["show", "plan.json"],
        ["drift", "-c", "zones/", "--shard", "GHA_EXPRESSION/4", "--format", "json"],
        ["show", "$F"],
      ]);
    },
  );

  it("reports a command, a flag or an argument zoneform does not have", () => {
    expect(resolveCall(["plann"]).problems).toHaveLength(1);
    expect(resolveCall(["drift", "--detailed-exitcod"]).problems).toHaveLength(1);
    expect(resolveCall(["show"]).problems).toHaveLength(1);
    expect(resolveCall(["drift", "zones/"]).problems).toHaveLength(1);
    expect(resolveCall(["waf-migration"]).problems).toHaveLength(1);
    expect(resolveCall(["apply", "plan.json", "--expect-digest", "sha256:x", "--yes"]).problems).toEqual([]);
  });

  it("rejects a crontab line without five schedule fields", () => {
    expect(() => crontabCommands("17 3 * * zoneform drift\n")).toThrow(/five schedule fields/);
    expect(() => crontabCommands("17 3 * * * date +%s\n")).toThrow(/%/);
    expect(crontabCommands("# c\nPATH=/bin\n@daily zoneform drift\n")).toEqual(["zoneform drift"]);
  });
});
