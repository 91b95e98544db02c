// The GitHub Action (action.yml) run as a runner runs it: `node <bundle>` in a child process with the
// INPUT_* and GITHUB_* variables, an event file, and the GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files,
// against the emulator and the GitHub stand-in (github-standin.ts). The bundle is built from the
// sources as they are now (scripts/bundle-action.mjs) into a temporary folder, not read from the
// committed dist-action/index.js, so that a test runs what src/ says.
//
// `runnerCommands` reads the log as the runner does (actions/runner, ActionCommandManager and
// ActionCommand: `::name …::data` at a line's start after spaces, else `##[name …]data` anywhere in
// it; `::stop-commands::TOKEN` ignores every command until one named TOKEN), so that a test asserts
// which workflow commands the runner would act on: outputs, masks, annotations.
import { spawn } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
// @ts-expect-error: a plain .mjs build script, without types
import { bundleAction as bundle } from "../../scripts/bundle-action.mjs";
import { TOKEN, tempDir, type TestEmulator } from "./cli.js";
import type { GitHubStandIn } from "./github-standin.js";

const ROOT = resolve(import.meta.dirname, "../..");
const bundleAction = bundle as () => Promise<string>;
const MODULE_URL_LINE = 'const __zoneformModuleUrl = new URL("../src/action/index.js", import.meta.url).href;';

let built: Promise<string> | undefined;

/** The Action's bundle, built once per test file into a temporary folder; its path. */
function actionBundle(): Promise<string> {
  built ??= (async () => {
    const text = await bundleAction();
    if (!text.includes(MODULE_URL_LINE)) throw new Error(`the bundle's banner no longer has: ${MODULE_URL_LINE}`);
    // The bundle finds the package's files (schemas/, package.json) from src/action/ of this checkout.
    const url = JSON.stringify(pathToFileURL(join(ROOT, "src/action/index.js")).href);
    const dir = await tempDir("zoneform-action-bundle-");
    const path = join(dir, "index.js");
    await writeFile(path, text.replace(MODULE_URL_LINE, `const __zoneformModuleUrl = ${url};`));
    return path;
  })();
  return built;
}

export interface ActionRun {
  code: number;
  /** stdout and stderr, as the job's log shows them. */
  log: string;
  summary: string;
  outputs: Record<string, string>;
  /** The workflow commands the runner would act on, in order. */
  commands: RunnerCommand[];
}

/** Reads GITHUB_OUTPUT's `name<<DELIMITER` records (and `name=value` lines). */
export function parseOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const m = /^([^=<]+)<<(.+)$/.exec(line);
    if (m) {
      const end = lines.indexOf(m[2]!, i + 1);
      if (end < 0) throw new Error(`GITHUB_OUTPUT: ${m[1]} has no closing ${m[2]}`);
      out[m[1]!] = lines.slice(i + 1, end).join("\n");
      i = end;
    } else if (line.includes("=")) {
      out[line.slice(0, line.indexOf("="))] = line.slice(line.indexOf("=") + 1);
    } else if (line !== "") throw new Error(`GITHUB_OUTPUT: a line that is no record: ${line}`);
  }
  return out;
}

export interface RunnerCommand {
  command: string;
  properties: Record<string, string>;
  data: string;
  /** The line it was read from. */
  line: string;
}

/** The commands the runner registers (and therefore acts on, or warns about). */
const REGISTERED = [
  "set-env",
  "set-output",
  "save-state",
  "add-mask",
  "add-path",
  "add-matcher",
  "remove-matcher",
  "warning",
  "error",
  "notice",
  "debug",
  "group",
  "endgroup",
  "echo",
  "stop-commands",
];

const unescapeData = (s: string) => s.replace(/%0D/g, "\r").replace(/%0A/g, "\n").replace(/%25/g, "%");

function parseV2(line: string, registered: Set<string>): Omit<RunnerCommand, "line"> | undefined {
  const message = line.trimStart();
  if (!message.startsWith("::")) return undefined;
  const end = message.indexOf("::", 2);
  if (end < 0) return undefined;
  const info = message.slice(2, end);
  const space = info.indexOf(" ");
  const command = space < 0 ? info : info.slice(0, space);
  if (!registered.has(command.toLowerCase())) return undefined;
  const properties: Record<string, string> = {};
  if (space > 0)
    for (const p of info
      .slice(space + 1)
      .trim()
      .split(",")) {
      const eq = p.indexOf("=");
      if (eq > 0) properties[p.slice(0, eq)] = p.slice(eq + 1);
    }
  return { command: command.toLowerCase(), properties, data: unescapeData(message.slice(end + 2)) };
}

function parseV1(line: string, registered: Set<string>): Omit<RunnerCommand, "line"> | undefined {
  const start = line.indexOf("##[");
  if (start < 0) return undefined;
  const close = line.indexOf("]", start);
  if (close < 0) return undefined;
  const info = line.slice(start + 3, close);
  const space = info.indexOf(" ");
  const command = space < 0 ? info : info.slice(0, space);
  if (!registered.has(command.toLowerCase())) return undefined;
  const properties: Record<string, string> = {};
  if (space > 0)
    for (const p of info.slice(space + 1).split(";")) {
      const eq = p.indexOf("=");
      if (eq > 0) properties[p.slice(0, eq)] = p.slice(eq + 1);
    }
  return { command: command.toLowerCase(), properties, data: line.slice(close + 1) };
}

/** The workflow commands the runner acts on in `log`, in order (see the header). */
export function runnerCommands(log: string): RunnerCommand[] {
  const registered = new Set(REGISTERED);
  const out: RunnerCommand[] = [];
  let stopToken: string | undefined;
  // .NET's ReadLine ends a line at CR, LF or CRLF.
  for (const line of log.split(/\r\n|\r|\n/)) {
    if (line === "") continue;
    const cmd = parseV2(line, registered) ?? parseV1(line, registered);
    if (!cmd) continue;
    if (stopToken !== undefined) {
      if (cmd.command === stopToken) {
        registered.delete(stopToken);
        stopToken = undefined;
        out.push({ ...cmd, line });
      }
      continue;
    }
    if (cmd.command === "stop-commands") {
      stopToken = cmd.data.toLowerCase();
      registered.add(stopToken);
    }
    out.push({ ...cmd, line });
  }
  return out;
}

/** The commands that change something (outputs, masks, state, environment, annotations). */
export function actingCommands(commands: RunnerCommand[]): RunnerCommand[] {
  const harmless = new Set(["group", "endgroup", "stop-commands", "debug"]);
  return commands.filter((c) => !harmless.has(c.command) && REGISTERED.includes(c.command));
}

export interface RunOptions {
  emu: TestEmulator;
  gh: GitHubStandIn;
  /** The token the Action gets as its input github-token. */
  token: string;
  workspace: string;
  event: string;
  payload: object;
  inputs?: Record<string, string>;
  env?: Record<string, string>;
}

export async function runAction(o: RunOptions): Promise<ActionRun> {
  const home = await tempDir("zoneform-action-runner-");
  const files = { event: join(home, "event.json"), summary: join(home, "summary.md"), output: join(home, "output") };
  await writeFile(files.event, JSON.stringify(o.payload));
  await writeFile(files.summary, "");
  await writeFile(files.output, "");
  await mkdir(join(home, "locks"));
  const inputs = { "github-token": o.token, mode: "", ...o.inputs };
  const bundlePath = await actionBundle();
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    TMPDIR: process.env.TMPDIR ?? "",
    ...Object.fromEntries(Object.entries(inputs).map(([k, v]) => [`INPUT_${k.toUpperCase()}`, v])),
    GITHUB_EVENT_NAME: o.event,
    GITHUB_EVENT_PATH: files.event,
    GITHUB_STEP_SUMMARY: files.summary,
    GITHUB_OUTPUT: files.output,
    GITHUB_REPOSITORY: o.gh.repo,
    GITHUB_API_URL: o.gh.url,
    GITHUB_SERVER_URL: "https://github.example",
    GITHUB_RUN_ID: "4242",
    GITHUB_WORKSPACE: o.workspace,
    CLOUDFLARE_API_TOKEN: TOKEN,
    CLOUDFLARE_API_BASE_URL: o.emu.url,
    ...(o.emu.now ? { ZONEFORM_NOW: o.emu.now } : {}),
    ZONEFORM_LOCK_DIR: join(home, "locks"),
    // The bundle is compiled once per test file, not once per run (a runner starts it once per job).
    NODE_COMPILE_CACHE: join(dirname(bundlePath), "compile-cache"),
    ...o.env,
  };
  const child = spawn(process.execPath, [bundlePath], {
    cwd: o.workspace,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  child.stdout.on("data", (d) => (log += d));
  child.stderr.on("data", (d) => (log += d));
  const code = await new Promise<number>((r) => child.on("close", (c) => r(c ?? -1)));
  return {
    code,
    log,
    summary: await readFile(files.summary, "utf8"),
    outputs: parseOutputs(await readFile(files.output, "utf8")),
    commands: runnerCommands(log),
  };
}

/** A checkout: a fresh folder holding `files` (path → text). */
export async function workspaceWith(files: Record<string, string>): Promise<string> {
  const ws = await tempDir("zoneform-action-ws-");
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(ws, path, ".."), { recursive: true });
    await writeFile(join(ws, path), text);
  }
  return ws;
}

/** The first line of a comment the Action wrote: digest (or failed), head and run. */
export const MARKER_LINE =
  /^<!-- zoneform:plan v2 (?:digest=(sha256:[0-9a-f]{64})|failed) head=([0-9a-f]{40}) run=(\d+) -->$/;

/** The `METHOD path` of every operation a saved plan would send, sorted. */
export function planWrites(planText: string): string[] {
  const plan = JSON.parse(planText) as {
    zones: Array<{ changes: Array<{ operations: Array<{ method: string; path: string }> }> }>;
  };
  return plan.zones
    .flatMap((z) => z.changes.flatMap((c) => c.operations.map((o) => `${o.method} ${o.path.replace(/^\//, "")}`)))
    .sort();
}
