// The recipes in examples/ci work as written, as far as a test can tell without a CI service: each file
// parses (crontab: five schedule fields and a command per line). The GitHub workflows use the zoneform
// Action (action.yml) with only inputs it has and read only outputs it sets, and every other action
// they use is an actions/* (or github/codeql-action) major that runs on Node 24. The GitLab and cron
// recipes run the CLI: every `zoneform …` names a command, flags and arguments the program has, and
// they install zoneform as README "Install" does: `git clone` of this repository's URL (no release is
// tagged yet: the GitLab recipe checks out the commit its ZONEFORM_COMMIT pins, 40 hex checked before the
// clone and HEAD checked to be it after; cron the default branch; test/unit/docs/install-lines.test.ts
// checks that any ref named is a tag or a branch), `npm ci` and `npm pack` in the clone, `npm install --global` of the packed file
// (never the npm registry, where there is no zoneform, nor a git URL through the `prepare` script the
// package no longer has); the GitLab image's Node is one package.json's engines accepts, with git.
// test/soak/recipe-install.test.ts runs those install lines. Least privilege: a plan, drift or audit
// gets the read-only Cloudflare token (CLOUDFLARE_API_TOKEN_READ); only a job that applies gets the
// edit token (CLOUDFLARE_API_TOKEN_EDIT), and only in the protected environment cloudflare-production;
// each GitHub job's `permissions:` are exactly what its steps use; plans run on `pull_request`, never
// `pull_request_target`. Every apply is of a reviewed plan (`apply PLAN --expect-digest`), no zoneform
// exit code is thrown away with `|| true`, and no recipe reads a digest out of text or finds a comment
// or note by what it starts with: the GitLab recipe's plan and apply jobs go through the note script
// examples/ci/gitlab-reviewed-plan.mjs (its own tests: test/unit/gitlab-reviewed-plan.test.ts and
// test/soak/gitlab-recipe.test.ts), with the digest zoneform computes from the plan file. Every GitLab
// job runs zoneform through that script's `zoneform` too, whose allow-listed environment (never CI_*,
// GITLAB_* or ZONEFORM_GITLAB_TOKEN, even referenced) is tested here, as zoneform sees it. The evidence of
// the period: a GitHub step that talks to the repository with git gets the job's token in its own env
// and gives it to that one git command (`git -c http.<server>/.extraheader=…`), never to .git/config or
// a URL, and `git push` needs contents: write; the GitLab evidence job starts from its last artifact and
// starts a record from nothing only on the run marked first (gitlabEvidenceProblems).
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { Command } from "commander";
import { parse, parseDocument } from "yaml";
import { describe, expect, it } from "vitest";
import { memoryIO } from "../../src/cli/io.js";
import { buildProgram } from "../../src/cli/build-program.js";
import { COMMENT_MARKER } from "../../src/plan/render/markdown.js";
import { replaceTemplateTokens } from "../../src/template.js";
// @ts-expect-error: a plain .mjs example script, without types
import * as noteScript from "../../examples/ci/gitlab-reviewed-plan.mjs";
import { tempDir } from "../helpers/cli.js";
import { type INSTALLING, recipeInstall } from "../helpers/recipes.js";

const ROOT = resolve(import.meta.dirname, "../..");
const DIR = resolve(ROOT, "examples/ci");
const PKG = JSON.parse(readFileSync(resolve(ROOT, "package.json"), "utf8")) as {
  version: string;
  repository: { url: string };
  engines: { node: string };
};
/** What the recipes that run the CLI clone: this repository (package.json's URL without npm's `git+`). */
const REPOSITORY = PKG.repository.url.replace(/^git\+/, "");

const program = await buildProgram({ io: memoryIO().io, setExit: () => undefined });

interface Step {
  id?: string;
  if?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, unknown>;
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

/** A job of a GitHub workflow. */
interface GitHubJob {
  if?: string;
  environment?: string | { name?: string };
  permissions?: unknown;
  env?: Record<string, unknown>;
  steps?: Step[];
}

interface GitHubWorkflow {
  on: unknown;
  permissions?: unknown;
  env?: Record<string, unknown>;
  jobs: Record<string, GitHubJob>;
}

/** A job of a .gitlab-ci.yml (any top-level key with a script). */
interface GitLabJob {
  image?: unknown;
  stage?: string;
  rules?: Array<{ if?: string }>;
  environment?: string | { name?: string };
  variables?: Record<string, unknown>;
  allow_failure?: boolean | { exit_codes?: number | number[] };
  before_script?: unknown;
  script?: unknown;
  artifacts?: { paths?: string[]; when?: string; expire_in?: string };
}

// --- reading the recipes ----------------------------------------------------------------------------

function recipe(file: string, text = readFileSync(resolve(DIR, file), "utf8")): Recipe {
  if (file === "crontab")
    return {
      file,
      text,
      steps: [],
      scripts: crontabCommands(text),
      setup: recipeInstall("crontab", text).shells.flat(),
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

/**
 * The GitLab jobs' shell function `zoneform`: zoneform run by the note script, with an allow-listed
 * environment (gitlab-reviewed-plan.mjs `zoneform ARGS`). Its definition is no zoneform invocation.
 */
const ZONEFORM_FUNCTION = 'zoneform() { node "$note" zoneform "$@"; }';

/** The arguments of every zoneform invocation in the scripts. */
function zoneformCalls(scripts: string[]): string[][] {
  const calls: string[][] = [];
  for (const script of scripts) {
    for (const words of shellCommands(script.split(ZONEFORM_FUNCTION).join(""))) {
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

// --- least privilege and the install ---------------------------------------------------------------------

type Level = "read" | "write";
type Grants = Record<string, Level>;

/** The events a GitHub workflow runs on. */
function events(on: unknown): string[] {
  if (typeof on === "string") return [on];
  if (Array.isArray(on)) return on.map(String);
  return Object.keys((on ?? {}) as object);
}

/** The modes the Action picks from the event when `mode` is empty (docs/ci.md#modes). */
const EVENT_MODES: Record<string, string[]> = {
  pull_request: ["plan"],
  push: ["apply"],
  schedule: ["drift", "audit"],
};

/** The modes a zoneform Action step can run: its `mode`, else those of the events it runs on. */
function stepModes(step: Step, on: string[]): string[] {
  if (typeof step.with?.mode === "string" && step.with.mode !== "") return [step.with.mode];
  const only = /github\.event_name\s*==\s*'([\w-]+)'/.exec(step.if ?? "");
  return (only ? [only[1]!] : on).flatMap((e) => EVENT_MODES[e] ?? []);
}

/** `a` with `b`'s grants added (write wins over read). */
function grant(a: Grants, b: Grants): Grants {
  const out = { ...a };
  for (const [scope, level] of Object.entries(b)) if (out[scope] !== "write") out[scope] = level;
  return out;
}

/** The job's GITHUB_TOKEN, as a workflow names it. */
const GITHUB_TOKEN_EXPR = /\$\{\{\s*(?:github\.token|secrets\.GITHUB_TOKEN)\s*\}\}/;

/** Whether a step's own `env:` holds the job's token. */
const hasToken = (step: Step) => Object.values(step.env ?? {}).some((v) => GITHUB_TOKEN_EXPR.test(String(v)));

/** The git commands of a shell script, each as `{ sub, words }`: its subcommand after git's own options. */
function gitCommands(script: string): Array<{ sub: string; words: string[] }> {
  const out: Array<{ sub: string; words: string[] }> = [];
  for (const words of shellCommands(script).map(commandWords)) {
    if (words[0] !== "git") continue;
    let k = 1;
    while (k < words.length && words[k]!.startsWith("-")) k += ["-c", "-C"].includes(words[k]!) ? 2 : 1;
    out.push({ sub: words[k] ?? "", words });
  }
  return out;
}

/** The git subcommands that talk to the repository on GitHub, and what each needs of the token. */
const GIT_REMOTE: Record<string, Level> = { push: "write", "ls-remote": "read", fetch: "read", pull: "read" };

/**
 * What a step uses of the job's GITHUB_TOKEN. checkout reads the repository; the Action's plan writes
 * the pull request's comment; its apply finds the merged pull request and its comment (pull-requests:
 * read) and the run that made the plan and its artifact (actions: read), unless it is given the plan
 * and the digest; download-artifact of another run reads that run; upload-sarif writes code scanning
 * and, in a private repository, reads the run and the repository (its README). upload-artifact
 * uses the runner's own token. A `run:` step given the token in its env uses it for its git commands:
 * `git push` writes the repository's contents, `git ls-remote`, `fetch` and `pull` read them.
 */
function stepNeeds(step: Step, on: string[]): Grants {
  const uses = step.uses ?? "";
  if (typeof step.run === "string") {
    if (!hasToken(step)) return {};
    let needs: Grants = {};
    for (const { sub } of gitCommands(step.run))
      if (GIT_REMOTE[sub]) needs = grant(needs, { contents: GIT_REMOTE[sub]! });
    return needs;
  }
  if (uses.startsWith("actions/checkout@")) return { contents: "read" };
  if (uses.startsWith("actions/download-artifact@"))
    return step.with?.["run-id"] !== undefined ? { actions: "read" } : {};
  if (uses.startsWith("github/codeql-action/upload-sarif@"))
    return { "security-events": "write", actions: "read", contents: "read" };
  if (!ACTION_USES.test(uses)) return {};
  let needs: Grants = {};
  for (const mode of stepModes(step, on)) {
    if (mode === "plan") needs = grant(needs, { "pull-requests": "write" });
    if (mode === "apply" && !(step.with?.digest && step.with["plan-path"]))
      needs = grant(needs, { "pull-requests": "read", actions: "read" });
  }
  return needs;
}

/** The Action's modes that call the Cloudflare API (all of them), and those that write. */
const WRITES = new Set(["apply"]);
const READ_TOKEN = "CLOUDFLARE_API_TOKEN_READ";
const EDIT_TOKEN = "CLOUDFLARE_API_TOKEN_EDIT";

function environmentName(environment: GitHubJob["environment"]): string | undefined {
  return typeof environment === "string" ? environment : environment?.name;
}

/**
 * What is wrong with a GitHub workflow's privileges: each job's `permissions:` (its own, else the
 * workflow's, which must be set) are exactly what its steps use; a job that applies gets
 * CLOUDFLARE_API_TOKEN from the secret CLOUDFLARE_API_TOKEN_EDIT and runs in an environment, any other
 * job that runs zoneform from CLOUDFLARE_API_TOKEN_READ; no job outside an environment names the edit
 * token; no other Cloudflare secret; never `pull_request_target`; checkouts keep no credentials.
 */
export function githubProblems(text: string): string[] {
  const wf = parse(text) as GitHubWorkflow;
  const on = events(wf.on);
  const problems: string[] = [];
  if (on.includes("pull_request_target"))
    problems.push("on: pull_request_target runs a pull request with the repository's secrets: use pull_request");
  if (wf.permissions === undefined)
    problems.push("no workflow `permissions:`: a job without its own gets the repository's default token permissions");
  for (const [name, job] of Object.entries(wf.jobs ?? {})) {
    const steps = job.steps ?? [];
    const needs = steps.reduce((acc, step) => grant(acc, stepNeeds(step, on)), {} as Grants);
    const granted = job.permissions ?? wf.permissions;
    const given =
      granted !== null && typeof granted === "object"
        ? Object.fromEntries(Object.entries(granted).filter(([, level]) => level !== "none"))
        : granted;
    const sorted = (g: unknown) =>
      g !== null && typeof g === "object" ? JSON.stringify(Object.entries(g).sort()) : JSON.stringify(g);
    if (sorted(given) !== sorted(needs))
      problems.push(`${name}: permissions ${JSON.stringify(granted)}; its steps use ${JSON.stringify(needs)}`);

    const zoneform = steps.filter((st) => ACTION_USES.test(st.uses ?? ""));
    const applies = zoneform.some((st) => stepModes(st, on).some((m) => WRITES.has(m)));
    const environment = environmentName(job.environment);
    const jobText = JSON.stringify(job);
    if (zoneform.length > 0) {
      const want = `\${{ secrets.${applies ? EDIT_TOKEN : READ_TOKEN} }}`;
      if (job.env?.CLOUDFLARE_API_TOKEN !== want)
        problems.push(`${name}: CLOUDFLARE_API_TOKEN is ${String(job.env?.CLOUDFLARE_API_TOKEN)}, not ${want}`);
    }
    if (applies && !environment) problems.push(`${name}: applies outside a protected environment`);
    if (jobText.includes(EDIT_TOKEN) && !environment)
      problems.push(`${name}: names ${EDIT_TOKEN} outside an environment (a repository secret a branch can read)`);
    if (jobText.includes(EDIT_TOKEN) && on.includes("pull_request"))
      problems.push(`${name}: the edit token in a workflow that runs on pull requests`);
    for (const m of jobText.matchAll(/secrets\.([\w-]+)/g))
      if (/^CLOUDFLARE/i.test(m[1]!) && m[1] !== READ_TOKEN && m[1] !== EDIT_TOKEN)
        problems.push(`${name}: secrets.${m[1]}: the recipes' Cloudflare tokens are ${READ_TOKEN} and ${EDIT_TOKEN}`);
    for (const step of steps)
      if (step.uses?.startsWith("actions/checkout@") && step.with?.["persist-credentials"] !== false)
        problems.push(`${name}: ${step.uses} keeps the job's token in .git/config: persist-credentials: false`);
    problems.push(...credentialProblems(name, wf, job));
  }
  return problems;
}

/**
 * What is wrong with how a job hands its GITHUB_TOKEN to git: only a step's own `env:` holds it (never
 * the job's or the workflow's, which every step gets), and that step gives it to each git command that
 * talks to GitHub on the command line (`git -c http.<server>/.extraheader=…`), never in .git/config
 * (`git config`, `git remote add|set-url` with a token in the URL, a credential helper) nor in a URL;
 * a step that pushes has the token in its own env (no other credential is left to push with).
 */
export function credentialProblems(name: string, wf: Pick<GitHubWorkflow, "env">, job: GitHubJob): string[] {
  const problems: string[] = [];
  for (const [where, env] of [
    ["the workflow's", wf.env],
    ["the job's", job.env],
  ] as const)
    if (Object.values(env ?? {}).some((v) => GITHUB_TOKEN_EXPR.test(String(v))))
      problems.push(`${name}: the job's token in ${where} env, which every step gets: give it to the one step`);
  for (const step of job.steps ?? []) {
    if (typeof step.run !== "string") continue;
    const token = hasToken(step);
    for (const { sub, words } of gitCommands(step.run)) {
      const line = words.join(" ");
      if (sub === "config" || sub === "credential" || (sub === "remote" && /\b(?:add|set-url)\b/.test(line)))
        problems.push(`${name}: \`${line}\` writes to .git/config: give the token to the one git command (git -c)`);
      if (/:\/\/[^/\s]*@/.test(line)) problems.push(`${name}: \`${line}\`: a credential in a URL`);
      if (!GIT_REMOTE[sub]) continue;
      if (sub === "push" && !token) problems.push(`${name}: \`${line}\` without the job's token in its step's env`);
      const header = words.some((w, i) => words[i - 1] === "-c" && /^http\.\S*\.extraheader=/i.test(w));
      if (token && !header)
        problems.push(`${name}: \`${line}\` does not get the token as git -c http.<server>/.extraheader=…`);
    }
  }
  return problems;
}

/** The jobs of a .gitlab-ci.yml: the top-level keys whose value has a `script`. */
function gitlabJobs(config: Record<string, unknown>): Array<[string, GitLabJob]> {
  return Object.entries(config).filter(
    (e): e is [string, GitLabJob] => e[1] !== null && typeof e[1] === "object" && "script" in (e[1] as object),
  );
}

/**
 * What is wrong with the GitLab recipe's privileges: a job that applies maps CLOUDFLARE_API_TOKEN to
 * $CLOUDFLARE_API_TOKEN_EDIT and names an environment; any other job that calls the API maps it to
 * $CLOUDFLARE_API_TOKEN_READ; no job outside an environment names the edit token; the top level sets
 * no CLOUDFLARE_API_TOKEN; every image is a Node package.json's engines accepts, with git.
 */
export function gitlabProblems(text: string): string[] {
  const config = parse(text) as Record<string, unknown>;
  const problems: string[] = [];
  const top = (config.variables ?? {}) as Record<string, unknown>;
  if ("CLOUDFLARE_API_TOKEN" in top) problems.push("the top-level variables set CLOUDFLARE_API_TOKEN for every job");
  const images: unknown[] = [config.image, (config.default as GitLabJob | undefined)?.image];
  for (const [name, job] of gitlabJobs(config)) {
    images.push(job.image);
    const commands = zoneformCalls(gitlabScripts({ [name]: job })).map((args) => resolveCall(args).path[0]);
    const applies = commands.includes("apply");
    const environment = environmentName(job.environment);
    if (commands.some((c) => c === "plan" || c === "apply" || c === "drift" || c === "audit")) {
      const want = `$${applies ? EDIT_TOKEN : READ_TOKEN}`;
      if (job.variables?.CLOUDFLARE_API_TOKEN !== want)
        problems.push(`${name}: CLOUDFLARE_API_TOKEN is ${String(job.variables?.CLOUDFLARE_API_TOKEN)}, not ${want}`);
    }
    if (applies && !environment) problems.push(`${name}: applies outside a protected environment`);
    if (JSON.stringify(job).includes(EDIT_TOKEN) && !environment)
      problems.push(`${name}: names ${EDIT_TOKEN} outside an environment`);
  }
  for (const image of images.filter((i) => i !== undefined)) {
    const name = typeof image === "string" ? image : String((image as { name?: unknown }).name);
    problems.push(...nodeImageProblems(name));
  }
  return problems;
}

/** `a` compared with `b`, version by version: negative, 0 or positive. */
function compareVersions(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < 3; i++) if (a[i]! !== b[i]!) return a[i]! - b[i]!;
  return 0;
}

/** Whether `version` is in an npm range of `||`-joined comparator sets (`^X.Y.Z`, `>=X.Y.Z`, `<X.Y.Z`, `X.Y.Z`). */
export function satisfies(range: string, version: readonly number[]): boolean {
  return range.split("||").some((set) =>
    set
      .trim()
      .split(/\s+/)
      .every((comparator) => {
        const m = /^(\^|>=|>|<=|<|=)?(\d+)\.(\d+)\.(\d+)$/.exec(comparator);
        if (!m) throw new Error(`engines: "${comparator}" is not a comparator this test reads`);
        const bound = [Number(m[2]), Number(m[3]), Number(m[4])];
        const c = compareVersions(version, bound);
        switch (m[1]) {
          case "^":
            return c >= 0 && version[0] === bound[0];
          case ">=":
            return c >= 0;
          case ">":
            return c > 0;
          case "<=":
            return c <= 0;
          case "<":
            return c < 0;
          default:
            return c === 0;
        }
      }),
  );
}

/**
 * What is wrong with a CI image for the install: it must be `node:<version>[-variant]` whose every Node
 * (`node:24`: 24.0.0 to the last 24) package.json's engines accepts, and not a variant without git
 * (slim, alpine), which the install clones with.
 */
export function nodeImageProblems(image: string, range = PKG.engines.node): string[] {
  const m = /^(?:docker\.io\/)?(?:library\/)?node:(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-([\w.-]+))?$/.exec(image);
  if (!m) return [`${image}: not a node:<version> image, so which Node it runs is not known`];
  const [major, minor, patch] = [m[1], m[2], m[3]].map((p) => (p === undefined ? undefined : Number(p)));
  const lowest = [major!, minor ?? 0, patch ?? 0];
  const highest = [major!, minor ?? Number.MAX_SAFE_INTEGER, patch ?? Number.MAX_SAFE_INTEGER];
  const problems: string[] = [];
  if (!satisfies(range, lowest) || !satisfies(range, highest))
    problems.push(`${image}: package.json's engines (${range}) refuse some or all of the Node versions it can be`);
  if (/\b(?:slim|alpine)\b/.test(m[4] ?? ""))
    problems.push(`${image}: the ${m[4]} variant has no git, which the install clones with`);
  return problems;
}

/**
 * What is wrong with the install of a recipe that runs the CLI: README "Install" is one `git clone` of
 * the repository, then `npm ci` and `npm pack` in it, then `npm install --global` of the packed file;
 * every other npm install in the recipe is of that file too (never a git URL, which needs the gone
 * `prepare` script, nor the registry); the opening comment says how to pin a commit; the crontab's PATH
 * holds the folder `npm install --global` puts the command in (as root: /usr/local/bin).
 */
export function installProblems(file: (typeof INSTALLING)[number], text: string): string[] {
  const problems: string[] = [];
  let shells: string[][];
  try {
    shells = recipeInstall(file, text).shells;
  } catch (err) {
    return [(err as Error).message];
  }
  const steps = shells.map((lines) => shellCommands(lines.join("\n")).map(commandWords));
  const flat = steps.flat();
  const at = (test: (w: string[]) => boolean) => flat.findIndex(test);
  const clones = flat.filter((w) => w[0] === "git" && w[1] === "clone");
  if (clones.length !== 1 || !clones[0]!.includes(REPOSITORY))
    problems.push(`the install has ${clones.length} git clone(s); it needs one, of ${REPOSITORY}`);
  const clone = at((w) => w[0] === "git" && w[1] === "clone");
  const ci = at((w) => w[0] === "npm" && w[1] === "ci");
  const pack = at((w) => w[0] === "npm" && w[1] === "pack");
  const install = at((w) => w[0] === "npm" && ["install", "i"].includes(w[1]!) && w.some((a) => a.endsWith(".tgz")));
  if (!(clone >= 0 && clone < ci && ci < pack && pack < install))
    problems.push("the install is not git clone, npm ci, npm pack, then npm install of the packed file, in that order");
  const r = recipe(file, text);
  for (const w of [...r.scripts, ...r.setup].flatMap((sc) => shellCommands(sc)).map(commandWords)) {
    if (w[0] === "npx" && w.some((a) => a.startsWith("zoneform"))) problems.push(`npx ${w.slice(1).join(" ")}`);
    if (w[0] !== "npm" || !["install", "i", "add"].includes(w[1]!)) continue;
    const what = w.slice(2).filter((a) => !a.startsWith("-"));
    if (what.length === 0 || !what.every((a) => /(?:^|\/)zoneform-\*\.tgz$/.test(a)))
      problems.push(`npm ${w.slice(1).join(" ")}: installs something else than the packed file zoneform-*.tgz`);
    if (!w.includes("--global") && !w.includes("-g"))
      problems.push(`npm ${w.slice(1).join(" ")}: not --global (README "Install"), so not on PATH`);
  }
  if (/\bprepare\b/.test(text)) problems.push("names a `prepare` script: the package builds in `prepack` (npm pack)");
  const opening = text.split("\n").slice(0, 15).join("\n");
  if (!/has no release tag yet/.test(opening) || !/<commit>/.test(opening))
    problems.push("the opening comment does not say there is no release tag yet and how to pin a <commit>");
  if (file === "gitlab-ci.yml") problems.push(...pinProblems(text, flat));
  if (file === "crontab") {
    const path = /^PATH=(.*)$/m.exec(text)?.[1]?.split(":") ?? [];
    if (!path.includes("/usr/local/bin"))
      problems.push(
        `the crontab's PATH (${path.join(":")}) lacks /usr/local/bin, where npm install --global puts zoneform`,
      );
  } else {
    const config = parse(text) as Record<string, unknown>;
    const build = gitlabJobs(config).find(([, job]) => /\bnpm pack\b/.test(gitlabScripts({ job }).join("\n")));
    if (build) {
      const [name, job] = build;
      if (job.stage !== ".pre") problems.push(`${name}: not in stage .pre, so a job may run before its file is packed`);
      if (!Array.isArray(job.before_script) || job.before_script.length > 0)
        problems.push(`${name}: runs the default before_script, which installs the file before it is packed`);
      if (!job.artifacts?.paths?.includes("zoneform-*.tgz"))
        problems.push(`${name}: does not keep zoneform-*.tgz as an artifact for the other jobs`);
    }
  }
  return problems;
}

/** The variable the GitLab recipe's build job names the zoneform commit to install with. */
const PIN = "ZONEFORM_COMMIT";

/**
 * What is wrong with the GitLab recipe's pin (its install's commands `flat`, in order): the job that
 * packs zoneform sets ZONEFORM_COMMIT to the placeholder `<commit>` or a 40-hex commit id, refuses any
 * other value before the clone, checks that commit out after the clone, and checks that HEAD is it
 * (not a branch or tag of that name) before `npm pack`, as the GitHub recipes run the Action's commit.
 */
function pinProblems(text: string, flat: string[][]): string[] {
  const problems: string[] = [];
  const config = parse(text) as Record<string, unknown>;
  const build = gitlabJobs(config).find(([, job]) => /\bnpm pack\b/.test(gitlabScripts({ job }).join("\n")));
  const value = build?.[1].variables?.[PIN];
  if (typeof value !== "string" || !/^(?:<commit>|[0-9a-f]{40})$/.test(value))
    problems.push(`${build?.[0]}: ${PIN} is ${JSON.stringify(value)}, not <commit> or a 40-hex commit id`);
  const at = (test: (w: string[]) => boolean) => flat.findIndex(test);
  const pinned = `$${PIN}`;
  const format = at((w) => w[0] === "grep" && w.includes("[0-9a-f]{40}"));
  const clone = at((w) => w[0] === "git" && w[1] === "clone");
  const checkout = at((w) => w[0] === "git" && w.includes("checkout") && w.at(-1) === pinned);
  const head = at((w) => w.join(" ") === "git rev-parse HEAD");
  const verify = at((w) => w[0] === "test" && w[1] === "$(…)" && w[2] === "=" && w[3] === pinned);
  const pack = at((w) => w[0] === "npm" && w[1] === "pack");
  if (!(format >= 0 && format < clone))
    problems.push(`the install does not refuse a ${PIN} that is not 40 hex before the clone`);
  if (!(clone < checkout && checkout < pack))
    problems.push(`the install does not check out ${pinned} between the clone and npm pack`);
  if (!(Math.max(clone, checkout) < verify && verify < pack && head === verify - 1))
    problems.push(`the install does not check that HEAD is ${pinned} before npm pack`);
  return problems;
}

/** `text` with `from` replaced by `to`; throws when `from` is not in it, so that no mutation goes unmade. */
function mutate(text: string, from: string | RegExp, to: string): string {
  const out = text.replace(from, to);
  if (out === text) throw new Error(`mutation not made: ${String(from)} not found`);
  return out;
}

// --- the reviewed plan: never a digest read out of text ----------------------------------------------------

/** The GitLab recipe's note script, in examples/ci and so in the npm package (package.json `files`). */
const NOTE_SCRIPT = "gitlab-reviewed-plan.mjs";
const NOTE_SCRIPT_PATH = `"$(npm root --global)/zoneform/examples/ci/${NOTE_SCRIPT}"`;

/**
 * What reads a digest out of text, or finds a comment or note by text anyone can write: `Plan digest:`
 * in a script (a zone name, a live description or an issuer can print such a line), sed, grep or awk
 * taking a sha256 out of output, a note chosen by what its body starts with, and the Markdown
 * renderer's heading marker `<!-- zoneform plan -->` (which anyone can write first in a note) named as
 * what to look for.
 */
export function textDigestProblems(r: Pick<Recipe, "text" | "scripts">): string[] {
  const problems: string[] = [];
  for (const script of r.scripts) {
    if (/Plan digest/i.test(script))
      problems.push(
        "a script reads `Plan digest:` out of text: take the digest zoneform computes (show --format json)",
      );
    if (/\b(?:sed|grep|awk)\b[^\n]*(?:sha256|digest)/i.test(script))
      problems.push("a script takes a digest out of text with sed, grep or awk");
    if (/\bbody\b[^\n]*\.startsWith\(|\.startsWith\([^\n]*\bbody\b/.test(script))
      problems.push("a script chooses a note by what its body starts with, not by its author and line-1 marker");
  }
  if (r.text.includes(COMMENT_MARKER))
    problems.push(
      `names ${COMMENT_MARKER}, the Markdown's heading marker, which anyone can write: the plan comment or note is ` +
        "found by the marker on its line 1 and its author (docs/ci.md)",
    );
  return problems;
}

/** `[ "$a" != "$b" ]` in either order, then `exit 1` before its `fi`. */
function comparesAndStops(script: string, a: string, b: string): boolean {
  const test = [`[ "$${a}" != "$${b}" ]`, `[ "$${b}" != "$${a}" ]`];
  return test.some((t) => {
    const at = script.indexOf(t);
    if (at < 0) return false;
    const end = script.indexOf("\nfi", at);
    const body = end < 0 ? "" : script.slice(at, end);
    return /\bexit 1\b/.test(body);
  });
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * What is wrong with the GitLab recipe's binding of a reviewed plan to its merge request (the rules
 * of the Action's on GitHub, docs/ci.md): the jobs `plan` and `apply` run with `set -euo pipefail`
 * and through the note script of the zoneform installed (NOTE_SCRIPT, whose checks its own tests
 * hold: the marker read from line 1 of a note of the token's own user, the job it names a merge
 * request pipeline's of the head, in this project), never inline JavaScript;
 * - plan: `zoneform plan --out P` (P kept as an artifact), the digest zoneform computes from P
 *   (`show P --format json`) given to `note` with the Markdown of `show P --format markdown`, and a
 *   `failed` note when validate or plan fails;
 * - apply: `reviewed P F` (the plan job's artifact, saved as F) gives the marker's digest, the digest
 *   zoneform computes from F (`show F --format json`) is compared with it (exit 1 when they differ),
 *   then `apply F -c … --expect-digest <that digest> --auto-approve`.
 */
export function gitlabReviewProblems(text: string): string[] {
  const config = parse(text) as Record<string, unknown>;
  const jobs = new Map(gitlabJobs(config));
  const problems: string[] = [];
  const plan = jobs.get("plan");
  const apply = jobs.get("apply");
  if (!plan || !apply) return ["the recipe has no job `plan` or no job `apply`"];
  const scriptOf = (name: string, job: GitLabJob) => gitlabScripts({ [name]: job }).join("\n");
  const planScript = scriptOf("plan", plan);
  const applyScript = scriptOf("apply", apply);
  const tool: Record<string, string> = {};
  for (const [name, script] of [
    ["plan", planScript],
    ["apply", applyScript],
  ] as const) {
    if (!/^set -euo pipefail$/m.test(script))
      problems.push(`${name}: its script does not start with set -euo pipefail`);
    if (/\bnode\b[^\n]*(?:\s-e\s|--eval|--input-type)/.test(script))
      problems.push(`${name}: inline JavaScript; the note logic is ${NOTE_SCRIPT}'s, which its tests run`);
    const v = new RegExp(`^\\s*(\\w+)=${escapeRe(NOTE_SCRIPT_PATH)}$`, "m").exec(script)?.[1];
    if (!v) problems.push(`${name}: does not run ${NOTE_SCRIPT} of the zoneform installed (${NOTE_SCRIPT_PATH})`);
    else tool[name] = `node "$${v}"`;
  }
  if (!tool.plan || !tool.apply) return problems;

  // plan
  const planCall = zoneformCalls([planScript]).find((a) => resolveCall(a).path[0] === "plan");
  const saved = planCall?.[planCall.indexOf("--out") + 1];
  if (!planCall || !saved || !planCall.includes("--out")) return [...problems, "plan: no `zoneform plan --out FILE`"];
  if (!plan.artifacts?.paths?.includes(saved)) problems.push(`plan: ${saved} is not kept as the job's artifact`);
  const digestVar = new RegExp(
    `(\\w+)=\\$\\(zoneform show ${escapeRe(saved)} --format json \\| ${escapeRe(tool.plan)} digest\\)`,
  ).exec(planScript)?.[1];
  if (!digestVar) problems.push(`plan: the digest is not the one zoneform computes (show ${saved} --format json)`);
  const markdown = new RegExp(`zoneform show ${escapeRe(saved)} --format markdown > (\\S+)`).exec(planScript)?.[1];
  if (!markdown) problems.push(`plan: the note's Markdown is not zoneform show ${saved} --format markdown's`);
  if (digestVar && markdown && !planScript.includes(`${tool.plan} note "$${digestVar}" ${markdown} ${saved}`))
    problems.push(`plan: no note of that digest and that Markdown naming the artifact ${saved}`);
  for (const step of ["validate", "plan"])
    if (!new RegExp(`${escapeRe(tool.plan)} failed ${step} "\\$\\w+"; exit`).test(planScript))
      problems.push(`plan: a failed ${step} does not say so in the note`);

  // apply
  const reviewed = new RegExp(`(\\w+)=\\$\\(${escapeRe(tool.apply)} reviewed (\\S+) (\\S+)\\)`).exec(applyScript);
  if (!reviewed) return [...problems, "apply: does not take the reviewed plan from the note script (`reviewed`)"];
  const [, reviewedVar, artifact, file] = reviewed as unknown as [string, string, string, string];
  if (artifact !== saved) problems.push(`apply: downloads the artifact ${artifact}, not the plan job's ${saved}`);
  const computed = new RegExp(
    `(\\w+)=\\$\\(zoneform show ${escapeRe(file)} --format json \\| ${escapeRe(tool.apply)} digest\\)`,
  ).exec(applyScript);
  if (!computed) problems.push(`apply: the digest of ${file} is not computed by zoneform (show --format json)`);
  else if (!comparesAndStops(applyScript, computed[1]!, reviewedVar))
    problems.push(`apply: the computed digest is not compared with the reviewed one before applying`);
  const applies = zoneformCalls([applyScript])
    .map(resolveCall)
    .filter((c) => c.path[0] === "apply");
  const reviewedApply = applies.filter(
    (c) =>
      c.positionals[0] === file &&
      c.flags.includes("-c") &&
      c.flags.includes("--auto-approve") &&
      c.command.options.length > 0 &&
      applyScript.includes(`--expect-digest "$${reviewedVar}"`),
  );
  if (reviewedApply.length !== 1)
    problems.push(`apply: no \`zoneform apply ${file} -c … --expect-digest "$${reviewedVar}" --auto-approve\``);
  const order = [reviewed.index, computed?.index ?? -1, applyScript.indexOf(`zoneform apply ${file}`)];
  if (order.some((i) => i < 0) || order[0]! > order[1]! || order[1]! > order[2]!)
    problems.push("apply: not in the order reviewed, computed digest, apply");
  return problems;
}

/**
 * The GitLab jobs that run zoneform without the note script's allow-listed environment: each defines
 * `note` (the note script of the zoneform installed) and then ZONEFORM_FUNCTION before its first zoneform.
 */
export function gitlabEnvProblems(text: string): string[] {
  const problems: string[] = [];
  for (const [name, job] of gitlabJobs(parse(text) as Record<string, unknown>)) {
    const script = gitlabScripts({ [name]: job }).join("\n");
    if (zoneformCalls([script]).length === 0) continue;
    const note = new RegExp(`^\\s*note=${escapeRe(NOTE_SCRIPT_PATH)}$`, "m").exec(script)?.index ?? -1;
    const defined = script.indexOf(ZONEFORM_FUNCTION);
    if (note < 0 || defined < note || zoneformCalls([script.slice(0, defined)]).length > 0)
      problems.push(
        `${name}: runs zoneform with the job's whole environment: define note=${NOTE_SCRIPT_PATH}, then ` +
          `${ZONEFORM_FUNCTION}, first`,
      );
  }
  return problems;
}

// --- the evidence of the period on GitLab ------------------------------------------------------------------

/** The variable that marks the evidence schedule's pipelines, and its value for the very first run. */
const EVIDENCE_VARIABLE = "ZONEFORM_EVIDENCE";

/** A GitLab `expire_in` in days (`400 days`, `2 years`, `13 mos`), or undefined when not read. */
function expireDays(value: string | undefined): number | undefined {
  const m = /^(\d+)\s*(days?|d|weeks?|w|months?|mos?|years?|yrs?|y)$/i.exec(value?.trim() ?? "");
  if (!m) return value?.trim() === "never" ? Number.POSITIVE_INFINITY : undefined;
  const unit = m[2]!.toLowerCase();
  const days = unit.startsWith("d") ? 1 : unit.startsWith("w") ? 7 : unit.startsWith("m") ? 30 : 365;
  return Number(m[1]) * days;
}

/**
 * What is wrong with the GitLab recipe's evidence job (the job that runs `audit --evidence-dir D`): it
 * runs only in the evidence schedule's pipelines (a schedule with EVIDENCE_VARIABLE), which no other
 * scheduled job joins (its artifact counts for the next run only if that pipeline succeeds); before the
 * audit it downloads D from this job's last artifact on the default branch with the job token (the
 * artifacts-by-ref API), never sending the token on through a redirect; a 404 starts a record only on
 * the run marked `first`, and any other answer stops the job; it unzips D only; it renders the period
 * with `zoneform evidence D --format markdown` after the audit; findings (exit 2) leave the pipeline
 * successful (allow_failure on exit code 2 only); D is its artifact, kept even when the job fails, for
 * more than a year.
 */
export function gitlabEvidenceProblems(text: string): string[] {
  const config = parse(text) as Record<string, unknown>;
  const problems: string[] = [];
  const jobs = gitlabJobs(config);
  const recording = jobs.filter(([name, job]) =>
    zoneformCalls(gitlabScripts({ [name]: job })).some((a) => a[0] === "audit" && a.includes("--evidence-dir")),
  );
  if (recording.length !== 1) return [`${recording.length} jobs run audit --evidence-dir, not one`];
  const [name, job] = recording[0]!;
  const script = gitlabScripts({ [name]: job }).join("\n");
  const calls = zoneformCalls([script]);
  const audit = calls.find((a) => a[0] === "audit")!;
  const dir = audit[audit.indexOf("--evidence-dir") + 1]!;
  const ifs = (job.rules ?? []).map((r) => r.if ?? "");
  const marker = `$${EVIDENCE_VARIABLE}`;
  if (ifs.length === 0 || !ifs.every((c) => c.includes('$CI_PIPELINE_SOURCE == "schedule"') && c.includes(marker)))
    problems.push(`${name}: runs outside the schedule that sets ${EVIDENCE_VARIABLE}`);
  for (const [other, o] of jobs) {
    if (other === name) continue;
    const scheduled = (o.rules ?? []).filter((r) => (r.if ?? "").includes('$CI_PIPELINE_SOURCE == "schedule"'));
    if (scheduled.some((r) => !r.if!.includes(`${marker} == null`)))
      problems.push(`${other}: joins the evidence schedule's pipeline, whose success the next evidence run needs`);
  }

  const api = "$CI_API_V4_URL/projects/$CI_PROJECT_ID/jobs/artifacts/$CI_DEFAULT_BRANCH/download";
  const at = script.indexOf(api);
  if (at < 0 || !script.includes("?job=$CI_JOB_NAME"))
    problems.push(`${name}: does not download its last artifact (${api}?job=$CI_JOB_NAME)`);
  const curls = shellCommands(script)
    .map(commandWords)
    .filter((w) => w[0] === "curl");
  const withToken = curls.filter((w) => w.some((a) => a === "JOB-TOKEN: $CI_JOB_TOKEN"));
  if (withToken.length !== 1) problems.push(`${name}: ${withToken.length} curl calls send JOB-TOKEN: $CI_JOB_TOKEN`);
  if (withToken.some((w) => w.includes("--location") || w.includes("-L")))
    problems.push(`${name}: follows a redirect with the job token (curl --location): object storage must not get it`);
  if (!/if \[ "\$status" = 404 \] && \[ "\$ZONEFORM_EVIDENCE" = first \]; then/.test(script))
    problems.push(`${name}: a 404 starts a record on any run, not only on the one marked ${EVIDENCE_VARIABLE}=first`);
  if (!/\n\s*else\n[^\n]*\n\s*exit 1\n\s*fi\n/.test(script.slice(at)))
    problems.push(`${name}: an answer other than 200 and 404 does not stop the job`);
  if (!script.includes(`unzip -q previous.zip '${dir}*'`)) problems.push(`${name}: does not unzip ${dir} only`);
  const auditAt = script.indexOf("zoneform audit");
  if (at > auditAt) problems.push(`${name}: audits before it has the earlier record`);
  const period = script.indexOf(`zoneform evidence ${dir} --format markdown`);
  if (period < auditAt) problems.push(`${name}: no \`zoneform evidence ${dir} --format markdown\` after the audit`);
  const allowed = typeof job.allow_failure === "object" ? [job.allow_failure.exit_codes].flat() : job.allow_failure;
  if (JSON.stringify(allowed) !== "[2]")
    problems.push(`${name}: allow_failure is ${JSON.stringify(job.allow_failure)}, not exit_codes [2]`);
  if (!job.artifacts?.paths?.includes(dir)) problems.push(`${name}: ${dir} is not the job's artifact`);
  if (job.artifacts?.when !== "always") problems.push(`${name}: the artifact is not kept when the job fails`);
  if (!((expireDays(job.artifacts?.expire_in) ?? 0) > 365))
    problems.push(`${name}: the artifact expires in ${job.artifacts?.expire_in}, not after more than a year`);
  return problems;
}

// --- the tests ------------------------------------------------------------------------------------------

const files = readdirSync(DIR)
  .filter((f) => !f.startsWith(".") && f !== NOTE_SCRIPT)
  .sort();

describe("examples/ci", () => {
  it("has the recipes the README lists, and the GitLab recipe's note script", () => {
    expect(files).toEqual([
      "apply-on-merge.yml",
      "crontab",
      "gitlab-ci.yml",
      "nightly-drift.yml",
      "plan-on-pull-request.yml",
      "weekly-evidence.yml",
    ]);
    expect(readdirSync(DIR)).toContain(NOTE_SCRIPT);
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
          // A shell step's own output: one its script writes to $GITHUB_OUTPUT.
          const shell = r.steps.find((s) => s.id === m[1] && typeof s.run === "string");
          if (shell) {
            expect(shell.run, `${r.file}: steps.${m[1]} never sets ${m[2]}`).toMatch(
              new RegExp(`echo "${m[2]}=[^"\\n]*" >> "\\$GITHUB_OUTPUT"`),
            );
            continue;
          }
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

    it.skipIf(r.steps.length > 0)(
      `installs zoneform as README "Install" does: a clone of ${REPOSITORY}, npm ci, npm pack, the packed file`,
      () => {
        expect(installProblems(file as (typeof INSTALLING)[number], r.text)).toEqual([]);
      },
    );

    it("gives each job only what it needs: the read-only token to read, the edit token only in an environment", () => {
      if (r.steps.length > 0) expect(githubProblems(r.text)).toEqual([]);
      else if (file === "gitlab-ci.yml") expect(gitlabProblems(r.text)).toEqual([]);
      else {
        // cron only checks: drift and show, with the read-only token of the opening comment.
        expect(calls.map((args) => resolveCall(args).path[0]).filter((c) => c !== "drift" && c !== "show")).toEqual([]);
        expect(r.text).toMatch(/token with the Read permissions/);
      }
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

    it("reads no digest out of text, and finds no comment or note by the Markdown's heading marker", () => {
      expect(textDigestProblems(r)).toEqual([]);
    });
  });

  it("the GitLab recipe binds the reviewed plan to its merge request as the Action does on GitHub", () => {
    expect(gitlabReviewProblems(readFileSync(resolve(DIR, "gitlab-ci.yml"), "utf8"))).toEqual([]);
  });

  it("every GitLab job runs zoneform through the note script, with an allow-listed environment", () => {
    const gitlab = readFileSync(resolve(DIR, "gitlab-ci.yml"), "utf8");
    expect(gitlabEnvProblems(gitlab)).toEqual([]);
    const drift = gitlab.slice(gitlab.indexOf("\ndrift:"));
    const bare = gitlab.replace(drift, mutate(drift, `    - ${ZONEFORM_FUNCTION}`, "    - true"));
    expect(gitlabEnvProblems(bare)).toEqual([expect.stringMatching(/^drift: runs zoneform with the job's whole/)]);
    const early = mutate(gitlab, /^( {6})code=0\n( {6}zoneform validate)/m, "$1zoneform --version\n$1code=0\n$2");
    expect(gitlabEnvProblems(early.replace(ZONEFORM_FUNCTION, "true"))).toEqual([
      expect.stringMatching(/^plan: runs zoneform with the job's whole/),
    ]);
  });

  it(
    "the weekly evidence: the Action audits into a checkout of the branch zoneform-evidence (an orphan one on " +
      "the first run), and only the push step, always run, gets the token",
    () => {
      const r = recipe("weekly-evidence.yml");
      const wf = parse(r.text) as GitHubWorkflow & { concurrency?: Record<string, unknown> };
      expect(Object.keys(wf.on as object).sort()).toEqual(["schedule", "workflow_dispatch"]);
      expect(wf.concurrency).toEqual({ group: "zoneform-evidence", "cancel-in-progress": false });
      expect(Object.values(wf.jobs).map((j) => j.permissions)).toEqual([{ contents: "write" }]);
      const checkouts = r.steps.filter((s) => s.uses?.startsWith("actions/checkout@"));
      expect(checkouts.map((s) => s.with)).toEqual([
        { "persist-credentials": false },
        { ref: "zoneform-evidence", path: "zoneform-evidence", "persist-credentials": false },
      ]);
      expect(checkouts[1]!.if).toBe("steps.branch.outputs.exists == 'true'");
      const branch = r.steps.find((s) => s.id === "branch")!;
      expect(gitCommands(branch.run!).map((g) => g.sub)).toEqual(["ls-remote", "init"]);
      expect(branch.run).toContain("git init --quiet --initial-branch=zoneform-evidence zoneform-evidence");
      // ls-remote exits 2 for a branch that is not there; any other failure stops the job.
      expect(branch.run).toMatch(/elif \[ "\$code" -eq 2 \]; then\n[\s\S]*else\n\s*exit "\$code"\n\s*fi/);
      expect(actionSteps(r).map((s) => s.with)).toEqual([
        { mode: "audit", config: "zones/", "evidence-dir": "zoneform-evidence/evidence", "github-token": "" },
      ]);
      const push = r.steps.at(-1)!;
      expect(push.if).toMatch(/^always\(\) && /);
      expect(gitCommands(push.run!).map((g) => g.sub)).toEqual(["add", "diff", "diff", "commit", "push"]);
      expect(push.run).toContain('"$GITHUB_SERVER_URL/$GITHUB_REPOSITORY.git" HEAD:refs/heads/zoneform-evidence');
      expect(r.steps.filter(hasToken).map((s) => s.id ?? "push")).toEqual(["branch", "push"]);
    },
  );

  it("the GitLab evidence job keeps the period as its artifact, starting from its last run's", () => {
    expect(gitlabEvidenceProblems(readFileSync(resolve(DIR, "gitlab-ci.yml"), "utf8"))).toEqual([]);
  });

  it("drift runs once per cron job", () => {
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

describe("the privilege and install checks", () => {
  const text = (file: string) => readFileSync(resolve(DIR, file), "utf8");

  it("catch a pull request plan with the edit token, an apply outside its environment, extra permissions", () => {
    const pr = text("plan-on-pull-request.yml");
    expect(
      githubProblems(mutate(pr, "secrets.CLOUDFLARE_API_TOKEN_READ", "secrets.CLOUDFLARE_API_TOKEN_EDIT")),
    ).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^plan: CLOUDFLARE_API_TOKEN is/),
        expect.stringMatching(/^plan: names CLOUDFLARE_API_TOKEN_EDIT outside an environment/),
        expect.stringMatching(/^plan: the edit token in a workflow that runs on pull requests/),
      ]),
    );
    expect(githubProblems(mutate(pr, "secrets.CLOUDFLARE_API_TOKEN_READ", "secrets.CLOUDFLARE_API_TOKEN"))).toEqual([
      "plan: CLOUDFLARE_API_TOKEN is ${{ secrets.CLOUDFLARE_API_TOKEN }}, not ${{ secrets.CLOUDFLARE_API_TOKEN_READ }}",
      "plan: secrets.CLOUDFLARE_API_TOKEN: the recipes' Cloudflare tokens are CLOUDFLARE_API_TOKEN_READ and " +
        "CLOUDFLARE_API_TOKEN_EDIT",
    ]);
    expect(githubProblems(mutate(pr, "  pull_request:\n", "  pull_request_target:\n"))[0]).toMatch(
      /pull_request_target/,
    );
    expect(githubProblems(mutate(pr, "contents: read # to check out", "contents: write # to check out"))).toHaveLength(
      1,
    );
    expect(githubProblems(mutate(pr, /\n {6}pull-requests: write[^\n]*/, ""))).toHaveLength(1);
    expect(githubProblems(mutate(pr, "persist-credentials: false", "persist-credentials: true"))).toHaveLength(1);
    // No permissions anywhere: the repository's default.
    const bare = mutate(mutate(pr, /^permissions: \{\}.*\n/m, ""), /\n {4}permissions:(\n {6}.*)+/, "");
    expect(githubProblems(bare)).toEqual([
      "no workflow `permissions:`: a job without its own gets the repository's default token permissions",
      'plan: permissions undefined; its steps use {"contents":"read","pull-requests":"write"}',
    ]);

    const apply = text("apply-on-merge.yml");
    expect(githubProblems(mutate(apply, /\n {4}environment: .*/, ""))).toEqual([
      "apply: applies outside a protected environment",
      "apply: names CLOUDFLARE_API_TOKEN_EDIT outside an environment (a repository secret a branch can read)",
    ]);
    expect(
      githubProblems(mutate(apply, "secrets.CLOUDFLARE_API_TOKEN_EDIT", "secrets.CLOUDFLARE_API_TOKEN_READ")),
    ).toEqual([
      "apply: CLOUDFLARE_API_TOKEN is ${{ secrets.CLOUDFLARE_API_TOKEN_READ }}, not ${{ secrets.CLOUDFLARE_API_TOKEN_EDIT }}",
    ]);
    expect(githubProblems(mutate(apply, /\n {6}actions: read[^\n]*/, ""))).toHaveLength(1);

    const nightly = text("nightly-drift.yml");
    expect(githubProblems(mutate(nightly, /\n {6}actions: read[^\n]*/, ""))).toHaveLength(1);
    expect(githubProblems(mutate(nightly, /\n {6}security-events: write[^\n]*/, ""))).toHaveLength(1);
    expect(
      githubProblems(mutate(nightly, "secrets.CLOUDFLARE_API_TOKEN_READ", "secrets.CLOUDFLARE_API_TOKEN_EDIT")),
    ).toHaveLength(2);
  });

  it("catch the evidence job with more permissions than it uses, or a credential kept or given to every step", () => {
    const weekly = text("weekly-evidence.yml");
    expect(githubProblems(weekly)).toEqual([]);
    expect(githubProblems(mutate(weekly, "contents: write #", "contents: read #"))).toEqual([
      'evidence: permissions {"contents":"read"}; its steps use {"contents":"write"}',
    ]);
    expect(githubProblems(mutate(weekly, "contents: write #", "actions: read\n      contents: write #"))).toHaveLength(
      1,
    );
    const evidenceCheckout = /(path: zoneform-evidence\n {10}persist-credentials:) false/;
    expect(githubProblems(mutate(weekly, evidenceCheckout, "$1 true"))).toEqual([
      "evidence: actions/checkout@v6 keeps the job's token in .git/config: persist-credentials: false",
    ]);
    const configured = mutate(
      weekly,
      'git -c "http.$GITHUB_SERVER_URL/.extraheader=$auth" push --quiet',
      'git config "http.$GITHUB_SERVER_URL/.extraheader" "$auth"\n          git push --quiet',
    );
    expect(githubProblems(configured)).toEqual([
      "evidence: `git config http.$GITHUB_SERVER_URL/.extraheader $auth` writes to .git/config: give the token " +
        "to the one git command (git -c)",
      "evidence: `git push --quiet $GITHUB_SERVER_URL/$GITHUB_REPOSITORY.git HEAD:refs/heads/zoneform-evidence` " +
        "does not get the token as git -c http.<server>/.extraheader=…",
    ]);
    const inUrl = mutate(
      weekly,
      '"$GITHUB_SERVER_URL/$GITHUB_REPOSITORY.git" HEAD:refs',
      '"https://x-access-token:$TOKEN@github.com/$GITHUB_REPOSITORY.git" HEAD:refs',
    );
    expect(githubProblems(inUrl)).toEqual([
      "evidence: `git -c http.$GITHUB_SERVER_URL/.extraheader=$auth push --quiet " +
        "https://x-access-token:$TOKEN@github.com/$GITHUB_REPOSITORY.git HEAD:refs/heads/zoneform-evidence`: a " +
        "credential in a URL",
    ]);
    // The token for the whole job: every step (the Action's included) could push with it.
    const jobWide = mutate(
      weekly,
      "      CLOUDFLARE_API_TOKEN: ${{ secrets.CLOUDFLARE_API_TOKEN_READ }}\n",
      "      CLOUDFLARE_API_TOKEN: ${{ secrets.CLOUDFLARE_API_TOKEN_READ }}\n      TOKEN: ${{ github.token }}\n",
    );
    expect(githubProblems(jobWide)).toEqual([
      "evidence: the job's token in the job's env, which every step gets: give it to the one step",
    ]);
    // A push step without the token: no permission is used, and the push has no credential of its own.
    const bare = mutate(weekly, /(\n {6}- if: always\(\)[^\n]*\n) {8}env:\n {10}TOKEN: [^\n]*\n/, "$1");
    expect(githubProblems(bare)).toEqual([
      'evidence: permissions {"contents":"write"}; its steps use {"contents":"read"}',
      "evidence: `git -c http.$GITHUB_SERVER_URL/.extraheader=$auth push --quiet " +
        "$GITHUB_SERVER_URL/$GITHUB_REPOSITORY.git HEAD:refs/heads/zoneform-evidence` without the job's token in " +
        "its step's env",
    ]);
  });

  it("catch a GitLab evidence job that could start a record over one, leak its token or lose the period", () => {
    const gitlab = text("gitlab-ci.yml");
    const evidence = gitlab.slice(gitlab.indexOf("\nevidence:"));
    const inJob = (from: string | RegExp, to: string) => gitlab.replace(evidence, mutate(evidence, from, to));
    expect(gitlabEvidenceProblems(inJob('--header "JOB-TOKEN', '--location --header "JOB-TOKEN'))).toEqual([
      "evidence: follows a redirect with the job token (curl --location): object storage must not get it",
    ]);
    expect(
      gitlabEvidenceProblems(inJob('[ "$status" = 404 ] && [ "$ZONEFORM_EVIDENCE" = first ]', '[ "$status" = 404 ]')),
    ).toEqual(["evidence: a 404 starts a record on any run, not only on the one marked ZONEFORM_EVIDENCE=first"]);
    expect(
      gitlabEvidenceProblems(inJob(/( {6}else\n {8}echo "The last run's artifact[^\n]*\n) {8}exit 1\n/, "$1")),
    ).toEqual(["evidence: an answer other than 200 and 404 does not stop the job"]);
    expect(gitlabEvidenceProblems(inJob("expire_in: 400 days", "expire_in: 30 days"))).toEqual([
      "evidence: the artifact expires in 30 days, not after more than a year",
    ]);
    expect(gitlabEvidenceProblems(inJob("paths: [evidence/]", "paths: [evidence.md]"))).toEqual([
      "evidence: evidence/ is not the job's artifact",
    ]);
    expect(gitlabEvidenceProblems(inJob("    when: always\n", ""))).toEqual([
      "evidence: the artifact is not kept when the job fails",
    ]);
    expect(gitlabEvidenceProblems(inJob("exit_codes: [2]", "exit_codes: [1, 2]"))).toEqual([
      'evidence: allow_failure is {"exit_codes":[1,2]}, not exit_codes [2]',
    ]);
    expect(gitlabEvidenceProblems(inJob("zoneform evidence evidence/ --format markdown", "true"))).toEqual([
      "evidence: no `zoneform evidence evidence/ --format markdown` after the audit",
    ]);
    expect(
      gitlabEvidenceProblems(
        mutate(
          gitlab,
          '$CI_PIPELINE_SOURCE == "schedule" && $ZONEFORM_EVIDENCE == null',
          '$CI_PIPELINE_SOURCE == "schedule"',
        ),
      ),
    ).toEqual(["drift: joins the evidence schedule's pipeline, whose success the next evidence run needs"]);
    expect(gitlabProblems(inJob("$CLOUDFLARE_API_TOKEN_READ", "$CLOUDFLARE_API_TOKEN_EDIT"))).toEqual([
      "evidence: CLOUDFLARE_API_TOKEN is $CLOUDFLARE_API_TOKEN_EDIT, not $CLOUDFLARE_API_TOKEN_READ",
      "evidence: names CLOUDFLARE_API_TOKEN_EDIT outside an environment",
    ]);
    const bare = inJob(`      ${ZONEFORM_FUNCTION} # with an allow-listed environment\n`, "");
    expect(gitlabEnvProblems(bare)).toEqual([expect.stringMatching(/^evidence: runs zoneform with the job's whole/)]);
  });

  it("catch a GitLab job with the wrong token or no environment, and an image whose Node zoneform refuses", () => {
    const gitlab = text("gitlab-ci.yml");
    expect(gitlabProblems(mutate(gitlab, /^image: node:24\b/m, "image: node:20"))).toEqual([
      `node:20: package.json's engines (${PKG.engines.node}) refuse some or all of the Node versions it can be`,
    ]);
    expect(gitlabProblems(mutate(gitlab, /^image: node:24\b/m, "image: node:24-alpine"))).toEqual([
      "node:24-alpine: the alpine variant has no git, which the install clones with",
    ]);
    expect(gitlabProblems(mutate(gitlab, /\n {2}environment:\n {4}name: cloudflare-production.*/, ""))).toEqual([
      "apply: applies outside a protected environment",
      "apply: names CLOUDFLARE_API_TOKEN_EDIT outside an environment",
    ]);
    const drift = gitlab.slice(gitlab.indexOf("\ndrift:"));
    expect(
      gitlabProblems(gitlab.replace(drift, mutate(drift, "$CLOUDFLARE_API_TOKEN_READ", "$CLOUDFLARE_API_TOKEN_EDIT"))),
    ).toEqual([
      "drift: CLOUDFLARE_API_TOKEN is $CLOUDFLARE_API_TOKEN_EDIT, not $CLOUDFLARE_API_TOKEN_READ",
      "drift: names CLOUDFLARE_API_TOKEN_EDIT outside an environment",
    ]);
    expect(gitlabProblems(mutate(gitlab, /^variables:\n/m, "variables:\n  CLOUDFLARE_API_TOKEN: $X\n"))[0]).toMatch(
      /top-level variables/,
    );
  });

  it("catch the install through the gone `prepare` script, a registry install, and a build job in the way", () => {
    const gitlab = text("gitlab-ci.yml");
    const old =
      '    - npm install --prefix "$HOME/.zoneform" git+https://github.com/zoneform/zoneform.git\n' +
      '    - export PATH="$HOME/.zoneform/node_modules/.bin:$PATH"\n';
    const viaPrepare = mutate(gitlab, /^ {4}- npm install --global .*\n/m, old);
    expect(installProblems("gitlab-ci.yml", viaPrepare)).toEqual([
      "the install is not git clone, npm ci, npm pack, then npm install of the packed file, in that order",
      "npm install --prefix $HOME/.zoneform git+https://github.com/zoneform/zoneform.git: installs something else " +
        "than the packed file zoneform-*.tgz",
      "npm install --prefix $HOME/.zoneform git+https://github.com/zoneform/zoneform.git: not --global " +
        '(README "Install"), so not on PATH',
    ]);
    expect(installProblems("gitlab-ci.yml", mutate(gitlab, "./zoneform-*.tgz", "zoneform"))).toHaveLength(2);
    expect(installProblems("gitlab-ci.yml", mutate(gitlab, /\n {2}before_script: \[\]/, ""))).toEqual([
      "the install is not git clone, npm ci, npm pack, then npm install of the packed file, in that order",
      "build-zoneform: runs the default before_script, which installs the file before it is packed",
    ]);
    expect(installProblems("gitlab-ci.yml", mutate(gitlab, "stage: .pre", "stage: test"))).toHaveLength(1);
    expect(installProblems("gitlab-ci.yml", mutate(gitlab, "npm ci --no-audit --no-fund && ", ""))).toHaveLength(1);

    const cron = text("crontab");
    const gone = mutate(
      cron,
      /^# {3}cd .*\n# {3}npm install --global .*\n/m,
      "#   npm install --prefix /opt/zoneform git+https://github.com/zoneform/zoneform.git\n",
    );
    expect(installProblems("crontab", gone)).toEqual([
      "the install has 0 git clone(s); it needs one, of https://github.com/zoneform/zoneform.git",
      "the install is not git clone, npm ci, npm pack, then npm install of the packed file, in that order",
      "npm install --prefix /opt/zoneform git+https://github.com/zoneform/zoneform.git: installs something else " +
        "than the packed file zoneform-*.tgz",
      "npm install --prefix /opt/zoneform git+https://github.com/zoneform/zoneform.git: not --global " +
        '(README "Install"), so not on PATH',
    ]);
    expect(installProblems("crontab", mutate(cron, "PATH=/usr/local/bin:", "PATH=/opt/zoneform/bin:"))).toHaveLength(1);
    expect(installProblems("crontab", `${cron}\n# npm's prepare script\n`)).toHaveLength(1);
  });

  it("catch a GitLab install that is not pinned to the commit ZONEFORM_COMMIT names, or does not check it", () => {
    const gitlab = text("gitlab-ci.yml");
    expect(recipeInstall("gitlab-ci.yml", gitlab).shells[0]!.join("\n")).toContain(
      'checkout --quiet "$ZONEFORM_COMMIT"',
    );
    const checkout = / && git -c advice\.detachedHead=false checkout --quiet "\$ZONEFORM_COMMIT"/;
    expect(installProblems("gitlab-ci.yml", mutate(gitlab, checkout, ""))).toEqual([
      "the install does not check out $ZONEFORM_COMMIT between the clone and npm pack",
    ]);
    expect(installProblems("gitlab-ci.yml", mutate(gitlab, /^ {4}- test "\$\(git rev-parse HEAD\)".*\n/m, ""))).toEqual(
      ["the install does not check that HEAD is $ZONEFORM_COMMIT before npm pack"],
    );
    expect(installProblems("gitlab-ci.yml", mutate(gitlab, /^ {4}- \|\n {6}if ! printf[\s\S]*? {6}fi\n/m, ""))).toEqual(
      ["the install does not refuse a ZONEFORM_COMMIT that is not 40 hex before the clone"],
    );
    expect(
      installProblems("gitlab-ci.yml", mutate(gitlab, 'ZONEFORM_COMMIT: "<commit>"', 'ZONEFORM_COMMIT: "main"')),
    ).toEqual(['build-zoneform: ZONEFORM_COMMIT is "main", not <commit> or a 40-hex commit id']);
    expect(
      installProblems(
        "gitlab-ci.yml",
        mutate(gitlab, 'ZONEFORM_COMMIT: "<commit>"', `ZONEFORM_COMMIT: "${"0a".repeat(20)}"`),
      ),
    ).toEqual([]);
  });

  it("read package.json's engines as npm does, and a node image as every version its tag can be", () => {
    const range = "^22.19.0 || ^24.0.0 || >=26.0.0";
    expect(
      [
        [22, 18, 9],
        [22, 19, 0],
        [23, 0, 0],
        [24, 0, 0],
        [25, 9, 0],
        [26, 0, 0],
        [30, 1, 2],
      ].map((v) => satisfies(range, v)),
    ).toEqual([false, true, false, true, false, true, true]);
    expect(() => satisfies("~22.1.0", [22, 1, 0])).toThrow(/not a comparator/);
    expect(nodeImageProblems("node:24", range)).toEqual([]);
    expect(nodeImageProblems("node:26.1-bookworm", range)).toEqual([]);
    expect(nodeImageProblems("node:22.19", range)).toEqual([]);
    expect(nodeImageProblems("node:22", range)).toHaveLength(1); // 22.0 to 22.18 are refused
    expect(nodeImageProblems("node:23", range)).toHaveLength(1);
    expect(nodeImageProblems("node:24-slim", range)).toHaveLength(1);
    expect(nodeImageProblems("node:lts", range)).toHaveLength(1);
    expect(nodeImageProblems("ubuntu:24.04", range)).toHaveLength(1);
  });
});

describe("the reviewed-plan checks", () => {
  const gitlab = readFileSync(resolve(DIR, "gitlab-ci.yml"), "utf8");
  const scriptsOf = (text: string) => recipe("gitlab-ci.yml", text);

  it("catch the GitLab recipe before issue 33: any note with the heading marker, the digest read out of text", () => {
    const before = readFileSync(resolve(ROOT, "test/fixtures/ci-recipes/gitlab-ci.before-issue-33.yml"), "utf8");
    expect(textDigestProblems(scriptsOf(before))).toEqual([
      // plan: its note is any note that starts with the heading marker
      "a script chooses a note by what its body starts with, not by its author and line-1 marker",
      // apply: the digest out of that note's text, and out of show's text output
      "a script reads `Plan digest:` out of text: take the digest zoneform computes (show --format json)",
      "a script takes a digest out of text with sed, grep or awk",
      "a script chooses a note by what its body starts with, not by its author and line-1 marker",
      `names ${COMMENT_MARKER}, the Markdown's heading marker, which anyone can write: the plan comment or note is ` +
        "found by the marker on its line 1 and its author (docs/ci.md)",
    ]);
    expect(gitlabReviewProblems(before)).toEqual([
      "plan: its script does not start with set -euo pipefail",
      "plan: inline JavaScript; the note logic is gitlab-reviewed-plan.mjs's, which its tests run",
      "plan: does not run gitlab-reviewed-plan.mjs of the zoneform installed " +
        '("$(npm root --global)/zoneform/examples/ci/gitlab-reviewed-plan.mjs")',
      "apply: its script does not start with set -euo pipefail",
      "apply: inline JavaScript; the note logic is gitlab-reviewed-plan.mjs's, which its tests run",
      "apply: does not run gitlab-reviewed-plan.mjs of the zoneform installed " +
        '("$(npm root --global)/zoneform/examples/ci/gitlab-reviewed-plan.mjs")',
    ]);
  });

  it("catch a digest taken from text, a digest not compared, another artifact, and a plan applied unbound", () => {
    const fromText = mutate(
      gitlab,
      'computed=$(zoneform show reviewed-plan.json --format json | node "$note" digest)',
      "computed=$(zoneform show reviewed-plan.json | sed -n 's/^Plan digest: //p')",
    );
    expect(textDigestProblems(scriptsOf(fromText))).toEqual([
      "a script reads `Plan digest:` out of text: take the digest zoneform computes (show --format json)",
      "a script takes a digest out of text with sed, grep or awk",
    ]);
    expect(gitlabReviewProblems(fromText)).toEqual([
      "apply: the digest of reviewed-plan.json is not computed by zoneform (show --format json)",
      "apply: not in the order reviewed, computed digest, apply",
    ]);
    const planFromText = mutate(
      gitlab,
      'digest=$(zoneform show plan.json --format json | node "$note" digest)',
      "digest=$(zoneform show plan.json | grep -o 'sha256:[0-9a-f]*')",
    );
    expect(textDigestProblems(scriptsOf(planFromText))).toEqual([
      "a script takes a digest out of text with sed, grep or awk",
    ]);
    expect(gitlabReviewProblems(planFromText)).toEqual([
      "plan: the digest is not the one zoneform computes (show plan.json --format json)",
    ]);
    expect(
      gitlabReviewProblems(mutate(gitlab, /if \[ "\$computed" != "\$reviewed" \]; then\n(?:.*\n)*?\s*fi\n/, "")),
    ).toEqual(["apply: the computed digest is not compared with the reviewed one before applying"]);
    expect(
      gitlabReviewProblems(
        mutate(gitlab, "reviewed plan.json reviewed-plan.json", "reviewed plan.md reviewed-plan.json"),
      ),
    ).toEqual(["apply: downloads the artifact plan.md, not the plan job's plan.json"]);
    expect(gitlabReviewProblems(mutate(gitlab, '--expect-digest "$reviewed"', '--expect-digest "$computed"'))).toEqual([
      'apply: no `zoneform apply reviewed-plan.json -c … --expect-digest "$reviewed" --auto-approve`',
    ]);
    expect(
      gitlabReviewProblems(
        mutate(gitlab, "zoneform apply reviewed-plan.json -c zones/", "zoneform apply reviewed-plan.json"),
      ),
    ).toEqual(['apply: no `zoneform apply reviewed-plan.json -c … --expect-digest "$reviewed" --auto-approve`']);
    expect(
      gitlabReviewProblems(mutate(gitlab, /\n {6}if \[ "\$code" -ne 0 \]; then node "\$note" failed validate.*/, "")),
    ).toEqual(["plan: a failed validate does not say so in the note"]);
    expect(gitlabReviewProblems(mutate(gitlab, "paths: [plan.json, plan.md]", "paths: [plan.md]"))).toEqual([
      "plan: plan.json is not kept as the job's artifact",
    ]);
  });

  it("the note script ships in the package the recipe installs", () => {
    const pkg = JSON.parse(readFileSync(resolve(ROOT, "package.json"), "utf8")) as { files: string[] };
    expect(pkg.files).toContain("examples");
    expect(pkg.files.filter((f) => f.startsWith("!") && f.includes("examples"))).toEqual([]);
    expect(existsSync(resolve(ROOT, ".npmignore"))).toBe(false);
    expect(readFileSync(resolve(DIR, NOTE_SCRIPT), "utf8")).toMatch(/^#!\/usr\/bin\/env node\n/);
  });
});

describe("zoneform's environment in the GitLab jobs (gitlab-reviewed-plan.mjs zoneform ARGS)", () => {
  const note = noteScript as Record<string, any>;
  const GL_TOKEN = "glpat-0123456789abcdef";
  const JOB_TOKEN = "glcbt-job-token-0123";
  /** A GitLab job's environment: GitLab's variables, the project's, the image's. */
  const JOB: Record<string, string> = {
    PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
    HOME: "/root",
    LANG: "C.UTF-8",
    LC_ALL: "C.UTF-8",
    http_proxy: "http://proxy.internal:3128",
    NODE_EXTRA_CA_CERTS: "/etc/ssl/corp.pem",
    NODE_OPTIONS: "--max-old-space-size=4096",
    NO_COLOR: "1",
    CLOUDFLARE_API_TOKEN: "cf-read-token",
    CLOUDFLARE_API_TOKEN_READ: "cf-read-token",
    ZONEFORM_NOW: "2026-01-01T00:00:00Z",
    ZONEFORM_GITLAB_TOKEN: GL_TOKEN,
    CI_JOB_TOKEN: JOB_TOKEN,
    CI_REGISTRY_PASSWORD: "registry-password",
    CI_COMMIT_SHA: "a".repeat(40),
    GITLAB_USER_EMAIL: "someone@example.com",
    MY_TOKEN: GL_TOKEN,
    LOGPUSH_KEY: "logpush-key-value",
    SOME_OTHER_SECRET: "unreferenced-secret",
  };

  it("is what the files reference, zoneform's own variables and what Node needs; never GitLab's or its token", () => {
    expect(note.zoneformEnv(JOB, ["LOGPUSH_KEY"])).toEqual({
      PATH: JOB.PATH,
      HOME: "/root",
      LANG: "C.UTF-8",
      LC_ALL: "C.UTF-8",
      http_proxy: "http://proxy.internal:3128",
      NODE_EXTRA_CA_CERTS: "/etc/ssl/corp.pem",
      NODE_OPTIONS: "--max-old-space-size=4096",
      NO_COLOR: "1",
      CLOUDFLARE_API_TOKEN: "cf-read-token",
      CLOUDFLARE_API_TOKEN_READ: "cf-read-token",
      ZONEFORM_NOW: "2026-01-01T00:00:00Z",
      LOGPUSH_KEY: "logpush-key-value",
    });
    const everything = note.zoneformEnv(JOB, Object.keys(JOB)) as Record<string, string>;
    for (const name of Object.keys(everything)) expect(name).not.toMatch(/^(CI_|GITLAB_|ZONEFORM_GITLAB_TOKEN$)/i);
    expect(Object.values(everything)).not.toContain(GL_TOKEN);
    expect(Object.values(everything)).not.toContain(JOB_TOKEN);
    expect(everything.SOME_OTHER_SECRET).toBe("unreferenced-secret"); // referenced: passed
  });

  it("finds the references as zoneform's template syntax reads them (src/template.ts)", () => {
    const texts = [
      "plain: text",
      "a: ${env:A} $${env:ESCAPED} $$${env:DOLLAR_THEN_ESCAPE} ${other:B} ${env:C-D}",
      'b: "${env:X}${env:Y}" # ${env:IN_A_COMMENT}\n  c: ${env:}${env:Z',
      "${env:ONE}$${${env:TWO}}",
    ];
    for (const text of texts) {
      const expected: string[] = [];
      replaceTemplateTokens(text, (whole, inside) => {
        if (inside.startsWith("env:")) expected.push(inside.slice(4));
        return whole;
      });
      expect(note.referencedNames(text), text).toEqual(expected);
    }
    expect(note.configArgument(["plan", "-c", "zones/", "--out", "p.json"])).toBe("zones/");
    expect(note.configArgument(["drift", "--config=zones/"])).toBe("zones/");
    expect(note.configArgument(["validate", "-czones"])).toBe("zones");
    expect(note.configArgument(["show", "plan.json", "--format", "json"])).toBe("zoneform.yaml");
  });

  /** A project folder with zones/ and a stand-in `zoneform` on PATH that records what it was given. */
  async function project(zones: Record<string, string>): Promise<{ cwd: string; env: Record<string, string> }> {
    const cwd = await tempDir("zoneform-gitlab-env-");
    const bin = join(cwd, ".bin");
    await mkdir(join(cwd, "zones"));
    await mkdir(bin);
    for (const [name, text] of Object.entries(zones)) await writeFile(join(cwd, "zones", name), text);
    await writeFile(
      join(bin, "zoneform"),
      "#!/usr/bin/env node\n" +
        'require("node:fs").writeFileSync("seen.json", JSON.stringify({ args: process.argv.slice(2), env: process.env }));\n' +
        "process.exitCode = 2;\n",
    );
    await chmod(join(bin, "zoneform"), 0o755);
    return { cwd, env: { ...JOB, PATH: `${bin}:${JOB.PATH}` } };
  }

  it("runs zoneform with that environment and gives back its exit code", async () => {
    const { cwd, env } = await project({ "a.yaml": "x: ${env:LOGPUSH_KEY}\n", "b.yml": "y: $${env:CI_JOB_TOKEN}\n" });
    const code = await note.runZoneform(["plan", "-c", "zones/", "--detailed-exitcode"], env, { cwd });
    expect(code).toBe(2);
    const seen = JSON.parse(await readFile(join(cwd, "seen.json"), "utf8")) as { args: string[]; env: object };
    expect(seen.args).toEqual(["plan", "-c", "zones/", "--detailed-exitcode"]);
    expect(seen.env).toEqual(note.zoneformEnv(env, ["LOGPUSH_KEY"]));
    expect(seen.env).not.toHaveProperty("SOME_OTHER_SECRET");
    expect(seen.env).not.toHaveProperty("CI_JOB_TOKEN");
    expect(seen.env).not.toHaveProperty("ZONEFORM_GITLAB_TOKEN");
  });

  it("does not run zoneform when a file references a GitLab variable or a token: one line naming each", async () => {
    const { cwd, env } = await project({
      "a.yaml": "destination_conf: https://logs.example.net/?header_Authorization=${env:CI_JOB_TOKEN}\n",
      "b.yaml": "description: ${env:ZONEFORM_GITLAB_TOKEN} ${env:MY_TOKEN} ${env:LOGPUSH_KEY}\n",
    });
    const lines: string[] = [];
    const code = await note.runZoneform(["validate", "-c", "zones/"], env, { cwd, log: (l: string) => lines.push(l) });
    expect(code).toBe(3);
    expect(existsSync(join(cwd, "seen.json"))).toBe(false);
    expect(lines).toEqual([
      "gitlab-reviewed-plan: zoneform was not run: ${env:CI_JOB_TOKEN} in zones/a.yaml (a GitLab variable), " +
        "${env:ZONEFORM_GITLAB_TOKEN} in zones/b.yaml (this script's token), ${env:MY_TOKEN} in zones/b.yaml (it " +
        "holds a GitLab token): GitLab's variables (CI_*, GITLAB_*), ZONEFORM_GITLAB_TOKEN and the job token are " +
        "never passed to zoneform; give the value a variable of its own",
    ]);
  });
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
