// The shell blocks of README.md and docs/ that run against the emulator work as written. Such a block
// follows a marker:
//
//   <!-- run: emulator -->      a run of its own: a fresh temporary folder, a fresh shell, an emulator
//   <!-- run: continued -->     the same run as the marked block before it on the page (same folder,
//                               shell, variables and emulator)
//
// (a note in parentheses may follow the kind). Lines between the marker's first line and `-->` are
// hidden steps, run first in the same shell: what the prose between two blocks asks a reader to do.
// A run's blocks run in one bash, in order, one command a line (a `\` at the end continues it), with
// `zoneform` on PATH (the built CLI, on this Node: scripts/docs-samples.mjs's shim), the real curl
// (a HOME whose .curlrc makes it fail on an HTTP error: a 415 or 400 is a failed command, not text),
// and no CLOUDFLARE_* variable but those the blocks export. Each command's exit code is the one its
// comment says (`# …; exit 2`), else 0; the run stops at the first that is not. A block starts the
// emulator with `zoneform emulator --port 8787 … &`; the next command waits for it to listen (its
// first line of stdout, the base URL); a run whose blocks start none gets one, started the same way
// first. 8787 is rewritten to a free port throughout the run, so the docs show what a reader copies.
// Also: every block that talks to the emulator is marked (or is a sample of scripts/docs-samples.mjs),
// every curl that sends a body says it is JSON, and the README's way to run the checkout's zoneform
// without installing it works.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { delimiter, join } from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script, without types
import { ROOT, SHOWN_PORT, docFiles, findSamples, writeZoneformShim } from "../../scripts/docs-samples.mjs";
// @ts-expect-error: a plain .mjs build script, without types
import { staleReason } from "../../scripts/build-if-stale.mjs";
import { tempDir } from "../helpers/cli.js";

/** One command of a block: its code (comment removed, continuation lines joined), and what it must exit with. */
export interface Command {
  /** file:line where it starts. */
  at: string;
  code: string;
  /** The exit code; "background" for a command ending in `&`, which is not waited for. */
  expect: number | "background";
}

export interface Block {
  at: string;
  kind: "emulator" | "continued";
  hidden: Command[];
  commands: Command[];
}

export interface Run {
  file: string;
  at: string;
  blocks: Block[];
}

const MARKER = /^<!-- run: (emulator|continued)(?: \([^)]*\))?(?: -->)?$/;
const FENCE = /^(\s*)(`{3,})(.*)$/;
/** A command that starts the emulator in the background. */
const STARTS_EMULATOR = /^zoneform emulator\b.*&$/;

/** `line` split at its comment: a `#` that starts a word outside quotes. */
export function splitComment(line: string): { code: string; comment: string } {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === "\\" && quote === '"') i++;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === "\\") i++;
    else if (c === "#" && (i === 0 || /\s/.test(line[i - 1]!)))
      return { code: line.slice(0, i).trimEnd(), comment: line.slice(i + 1).trim() };
  }
  return { code: line.trimEnd(), comment: "" };
}

/** The commands of shell `lines` (the first at line `first` of `file`): blank and comment-only lines skipped. */
export function commandsOf(lines: readonly string[], file: string, first: number): Command[] {
  const out: Command[] = [];
  let code: string[] = [];
  let start = 0;
  let comments: string[] = [];
  for (const [i, line] of lines.entries()) {
    const part = splitComment(line);
    if (code.length === 0) start = first + i;
    if (part.comment) comments.push(part.comment);
    if (part.code.trim() === "" && code.length === 0) {
      comments = [];
      continue;
    }
    code.push(part.code);
    if (part.code.endsWith("\\")) continue;
    const text = code.join("\n").trim();
    const exit = /\bexit (\d+)\b/.exec(comments.join(" "));
    const background = /[^&]&$/.test(text);
    out.push({ at: `${file}:${start}`, code: text, expect: background ? "background" : Number(exit?.[1] ?? 0) });
    code = [];
    comments = [];
  }
  if (code.length > 0) throw new Error(`${file}:${start}: the block ends inside a command (a \\ at its end)`);
  return out;
}

/** The runs of one Markdown page: each `run: emulator` block with the `run: continued` blocks after it. */
export function findRuns(text: string, file: string): Run[] {
  const lines = text.split("\n");
  const runs: Run[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]!.startsWith("<!-- run")) continue;
    const m = MARKER.exec(lines[i]!);
    if (!m) throw new Error(`${file}:${i + 1}: a run marker is <!-- run: emulator --> or <!-- run: continued -->`);
    let end = i;
    while (end < lines.length && !lines[end]!.endsWith("-->")) end++;
    const hidden = commandsOf(lines.slice(i + 1, end), file, i + 2);
    const fence = FENCE.exec(lines[end + 1] ?? "");
    if (!fence) throw new Error(`${file}:${i + 1}: a run marker must be followed at once by a fenced block`);
    let close = end + 2;
    while (close < lines.length && lines[close]!.trim() !== fence[2]) close++;
    if (close >= lines.length) throw new Error(`${file}:${end + 2}: the fenced block is not closed`);
    const body = lines.slice(end + 2, close).map((l) => l.slice(fence[1]!.length));
    const block: Block = {
      at: `${file}:${i + 1}`,
      kind: m[1] as Block["kind"],
      hidden,
      commands: commandsOf(body, file, end + 3),
    };
    if (block.kind === "emulator") runs.push({ file, at: block.at, blocks: [block] });
    else if (runs.length === 0) throw new Error(`${block.at}: run: continued, but no run: emulator before it`);
    else runs.at(-1)!.blocks.push(block);
    i = close;
  }
  return runs;
}

/** The port 8787 of the docs, in `code`, as `port`. */
const onPort = (code: string, port: number) =>
  code.replace(new RegExp(String.raw`(?<![\w.-])${SHOWN_PORT}(?!\w)`, "g"), String(port));

/** The commands a run runs, in order: its blocks' (hidden steps first), after an emulator when they start none. */
export function runCommands(run: Run): Command[] {
  const commands = run.blocks.flatMap((b) => [...b.hidden, ...b.commands]);
  const starts = commands.filter((c) => STARTS_EMULATOR.test(c.code));
  for (const c of starts)
    if (!new RegExp(String.raw`--port ${SHOWN_PORT}\b`).test(c.code))
      throw new Error(`${c.at}: start the emulator with --port ${SHOWN_PORT}, the port the docs show`);
  if (starts.length > 0) return commands;
  return [
    { at: `${run.at} (before it)`, code: `zoneform emulator --port ${SHOWN_PORT} &`, expect: "background" },
    ...commands,
  ];
}

/** What a command is checked to exit with: a started emulator's wait for its URL with 0, another `&` not at all. */
const expected = (c: Command): number | undefined =>
  STARTS_EMULATOR.test(c.code) ? 0 : c.expect === "background" ? undefined : c.expect;

/**
 * The bash script of `commands` on `port`: each command, then a line that appends its index and exit
 * code to `results` and stops the run when the code is not the expected one.
 */
export function script(commands: readonly Command[], port: number, results: string): string {
  const out = [
    "set -o pipefail",
    `__zf_done() { printf '%s %s\\n' "$1" "$2" >> '${results}'; [ "$2" = "$3" ] || exit 100; }`,
  ];
  for (const [i, c] of commands.entries()) {
    const code = onPort(c.code, port);
    const want = expected(c);
    // The first line of the emulator's stdout is its base URL, printed once it listens.
    if (STARTS_EMULATOR.test(c.code)) out.push(`read -r __zf_url < <(${code.slice(0, -1).trimEnd()})`);
    else out.push(code);
    if (want !== undefined) out.push(`__zf_done ${i} $? ${want}`);
  }
  return `${out.join("\n")}\n`;
}

/** A port nothing listens on now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

interface Exit {
  at: string;
  code: string;
  exit: number;
}

/** The commands of `commands` that are waited for, with the exit code each must have. */
const wanted = (commands: readonly Command[]): Exit[] =>
  commands.flatMap((c) => {
    const exit = expected(c);
    return exit === undefined ? [] : [{ at: c.at, code: c.code, exit }];
  });

/** Runs `run` in a fresh folder: each command waited for, with its exit code; its processes are ended after. */
async function execute(run: Run): Promise<{ exits: Exit[]; output: string }> {
  const root = await tempDir("zoneform-docs-shell-");
  const [work, home, bin, locks] = ["work", "home", "bin", "locks"].map((d) => join(root, d)) as [
    string,
    string,
    string,
    string,
  ];
  for (const d of [work, home, locks]) mkdirSync(d);
  writeZoneformShim(bin);
  // An HTTP error (the emulator's 415 for a body that is not JSON) fails the curl that met it.
  writeFileSync(join(home, ".curlrc"), "fail-with-body\nshow-error\n");
  const commands = runCommands(run);
  const results = join(root, "results");
  writeFileSync(results, "");
  writeFileSync(join(root, "run.sh"), script(commands, await freePort(), results));
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(CLOUDFLARE_|ZONEFORM_|CURL_HOME$|XDG_CONFIG_HOME$|npm_)/i.test(k)),
  );
  const env = {
    ...inherited,
    PATH: `${bin}${delimiter}${process.env.PATH ?? ""}`,
    HOME: home,
    NO_COLOR: "1",
    ZONEFORM_LOCK_DIR: locks, // runs of other test files apply to the same seed zones
  };
  // A process group of its own, so that the emulator a block left running ends with the run.
  const child = spawn("bash", [join(root, "run.sh")], {
    cwd: work,
    env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (d: Buffer) => (output += d.toString("utf8")));
  child.stderr.on("data", (d: Buffer) => (output += d.toString("utf8")));
  const endGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // The group has ended already.
    }
  };
  const timer = setTimeout(() => endGroup("SIGKILL"), 50_000);
  const closed = new Promise<void>((resolve) => child.on("close", () => resolve()));
  await new Promise<void>((resolve) => child.on("exit", () => resolve()));
  endGroup("SIGTERM");
  await closed;
  clearTimeout(timer);
  const exits = readFileSync(results, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => {
      const [i, exit] = l.split(" ").map(Number) as [number, number];
      return { at: commands[i]!.at, code: commands[i]!.code, exit };
    });
  return { exits, output };
}

/** The shell blocks of a page (info string sh, bash, shell, console or none): where each opens (line index), its lines. */
function shellBlocks(text: string): Array<{ open: number; lines: string[] }> {
  const lines = text.split("\n");
  const out: Array<{ open: number; lines: string[] }> = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = FENCE.exec(lines[i]!);
    if (!fence) continue;
    let close = i + 1;
    while (close < lines.length && lines[close]!.trim() !== fence[2]) close++;
    if (/^(?:sh|bash|shell|console)?$/.test(fence[3]!.trim())) out.push({ open: i, lines: lines.slice(i + 1, close) });
    i = close;
  }
  return out;
}

/** Whether shell lines talk to the emulator: a curl, or an emulator started in the background. */
const talksToEmulator = (lines: readonly string[]) =>
  lines.some(
    (l) => /(?:^|[;&|(]\s*|\bdo\s+)(?:\$ )?curl\s/.test(l.trim()) || STARTS_EMULATOR.test(splitComment(l).code),
  );

/** The shell blocks of a page that talk to the emulator with neither a run marker nor a sample marker. */
export function unmarkedBlocks(text: string, file: string): string[] {
  const lines = text.split("\n");
  const marked = new Set([
    ...(findSamples(text) as Array<{ open: number }>).map((s) => s.open),
    ...lines.flatMap((l, i) => (MARKER.test(l) ? [lines.findIndex((f, j) => j > i && FENCE.test(f))] : [])),
  ]);
  return shellBlocks(text)
    .filter((b) => !marked.has(b.open) && talksToEmulator(b.lines))
    .map((b) => `${file}:${b.open + 1}`);
}

/** The curl commands of `text` that send a body without saying it is JSON (`--json`, or the header with `-d`). */
export function curlsWithoutJson(text: string): string[] {
  const joined = text.replace(/\\\n\s*/g, " ");
  return [...joined.matchAll(/\bcurl\s[^\n;|&]*/g)]
    .map((m) => m[0])
    .filter((c) => /\s(?:-d|--data(?:-raw|-binary)?)\s/.test(c) && !/\s-G\b|\s--get\b/.test(c))
    .filter((c) => !/--json\s/.test(c) && !/-H\s+["']Content-Type: application\/json["']/i.test(c));
}

const PAGES = (docFiles() as string[]).map((file) => ({ file, text: readFileSync(join(ROOT, file), "utf8") }));
const RUNS = PAGES.flatMap((p) => findRuns(p.text, p.file));

describe("the shell blocks of README.md and docs/ that run against the emulator", () => {
  it("are found: the README's tour, the emulator's admin API, the PCI worked example", () => {
    expect(RUNS.map((r) => [r.at, r.blocks.length])).toEqual(
      expect.arrayContaining([
        [expect.stringMatching(/^README\.md:/), 2],
        [expect.stringMatching(/^docs\/emulator\.md:/), 1],
        [expect.stringMatching(/^docs\/pci-script-inventory\.md:/), 1],
      ]),
    );
  });

  it("are all marked: every block that talks to the emulator is a run or a sample's", () => {
    expect(PAGES.flatMap(({ file, text }) => unmarkedBlocks(text, file))).toEqual([]);
  });

  it("send every body with curl as JSON, which the emulator requires (else 415)", () => {
    expect(PAGES.flatMap(({ file, text }) => curlsWithoutJson(text).map((c) => `${file}: ${c}`))).toEqual([]);
  });

  it.each(RUNS.map((r) => [r.at, r] as const))(
    "%s: each command exits as the docs say",
    async (_at, run) => {
      const { exits, output } = await execute(run);
      expect(exits, output.slice(-6000)).toEqual(wanted(runCommands(run)));
    },
    60_000,
  );
});

describe("a run", () => {
  it("fails at a curl the emulator answers with an error (a body that is not JSON: 415)", async () => {
    const [run] = findRuns(
      "<!-- run: emulator -->\n```sh\n" +
        'curl -s http://127.0.0.1:8787/__emulator/zones -d \'{"name":"x.test","plan":"free"}\'\n' +
        "zoneform --version\n```\n",
      "x.md",
    );
    const { exits, output } = await execute(run!);
    expect(exits.map((e) => e.exit)).toEqual([0, 22]);
    expect(output).toContain("415");
  });
});

describe("the run markers", () => {
  it("read each command's exit code from its comment, and a command continued with \\ as one", () => {
    const page = [
      "<!-- run: emulator -->",
      "```sh",
      "zoneform emulator --port 8787 &   # starts it",
      "# a comment line",
      "zoneform plan --detailed-exitcode   # changes; exit 2",
      'curl -s -X PUT "$U" \\',
      '  --json \'{"a":"#not a comment"}\'   # done',
      "```",
      "",
      "<!-- run: continued (a note)",
      "echo hidden",
      "-->",
      "```sh",
      "zoneform drift",
      "```",
    ].join("\n");
    const [run] = findRuns(page, "x.md");
    expect(run!.blocks.map((b) => b.kind)).toEqual(["emulator", "continued"]);
    expect(runCommands(run!).map((c) => [c.at, c.code, c.expect])).toEqual([
      ["x.md:3", "zoneform emulator --port 8787 &", "background"],
      ["x.md:5", "zoneform plan --detailed-exitcode", 2],
      ["x.md:6", 'curl -s -X PUT "$U" \\\n  --json \'{"a":"#not a comment"}\'', 0],
      ["x.md:11", "echo hidden", 0],
      ["x.md:14", "zoneform drift", 0],
    ]);
    const text = script(runCommands(run!), 40123, "/r");
    expect(text).toContain("read -r __zf_url < <(zoneform emulator --port 40123)\n__zf_done 0 $? 0\n");
    expect(text).toContain("zoneform plan --detailed-exitcode\n__zf_done 1 $? 2\n");
  });

  it("start an emulator for a run whose blocks start none, and refuse one on another port", () => {
    const [run] = findRuns(
      "<!-- run: emulator -->\n```sh\ncurl -s http://127.0.0.1:8787/__emulator/state\n```\n",
      "x.md",
    );
    const text = script(runCommands(run!), 40123, "/r");
    expect(text).toContain("read -r __zf_url < <(zoneform emulator --port 40123)");
    expect(text).toContain("curl -s http://127.0.0.1:40123/__emulator/state\n");
    const [other] = findRuns("<!-- run: emulator -->\n```sh\nzoneform emulator --port 9999 &\n```\n", "x.md");
    expect(() => runCommands(other!)).toThrow(/x\.md:3: start the emulator with --port 8787/);
  });

  it("refuse a marker without its block, and a continued run without a run before it", () => {
    expect(() => findRuns("<!-- run: emulator -->\ntext\n", "x.md")).toThrow(/followed at once by a fenced block/);
    expect(() => findRuns("<!-- run: continued -->\n```sh\nls\n```\n", "x.md")).toThrow(/no run: emulator before/);
    expect(() => findRuns("<!-- run: everything -->\n```sh\nls\n```\n", "x.md")).toThrow(/a run marker is/);
  });

  it("find a block that talks to the emulator without a marker; not an output, a sample or another language", () => {
    const page = [
      "```sh\nzoneform emulator --port 8787 &   # unmarked\n```",
      "```\ncurl -s $A/reset\n```",
      "```\nhttp://127.0.0.1:8787/__emulator\n```",
      "```ts\nawait fetch(`${emu.adminUrl}/reset`); // curl -s $A/reset\n```",
      "<!-- sample: $ curl -s $A/state -->\n```\n$ curl -s $A/state\n```",
      "```sh\nzoneform emulator --port 0\n```",
    ].join("\n\n");
    expect(unmarkedBlocks(page, "x.md")).toEqual(["x.md:1", "x.md:5"]);
  });

  it("find a curl body sent without a JSON content type", () => {
    expect(
      curlsWithoutJson(
        "curl -s -X PUT $A/latency -d '{\"ms\":1}'\ncurl -s $A/x --json '{}'\n" +
          "curl -s $B -H \"Content-Type: application/json\" \\\n  -d '{}'\ncurl -sG $A/o --data-urlencode 'd=1'\n",
      ),
    ).toEqual(["curl -s -X PUT $A/latency -d '{\"ms\":1}'"]);
  });
});

describe("README Install: the checkout's zoneform without installing it", () => {
  const readme = PAGES.find((p) => p.file === "README.md")!.text;
  const start = readme.indexOf("## Install");
  const install = readme.slice(start, readme.indexOf("\n## ", start + 1));
  // The reader's PATH: the system's npm and Node, not node_modules/.bin (which npm puts first itself).
  const path = (process.env.PATH ?? "")
    .split(delimiter)
    .filter((d) => !d.includes("node_modules"))
    .join(delimiter);
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(npm_|INIT_CWD$)/i.test(k)));

  it.each([["npm run zoneform -- --help"], ["npx zoneform --help"]])(
    "%s runs as the README says, on the Node npm install put in node_modules",
    (command) => {
      expect(install).toContain(`\`${command}\``);
      // npm run builds a stale dist/ first, which would take dist/ away from the tests running now.
      expect(staleReason(), "dist/ changed after the tests' build").toBeUndefined();
      const [npm, ...args] = command.split(" ") as [string, ...string[]];
      const r = spawnSync(npm, args, { cwd: ROOT, env: { ...env, PATH: path }, encoding: "utf8" });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toContain("Usage: zoneform [options] [command]");
    },
  );
});
