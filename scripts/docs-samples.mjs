// The sample outputs of README.md and docs/ regenerated from the commands they show (`npm run
// docs:samples`; `--check` only compares). A generated block is the fenced block right after a marker:
//
//   <!-- sample
//   cp docs/samples/checkout.yaml zoneform.yaml     (no prefix: a step run first, its output not shown)
//   $ zoneform plan                                  ($: shown with its prompt, then its output)
//   > zoneform plan                                  (>: only its output is shown)
//   -->
//
// (one line works too: `<!-- sample: $ zoneform plan -c examples/minimal.yaml -->`). Each sample runs
// in a fresh directory holding copies of examples/ and docs/samples/, with bash, `zoneform` on PATH
// (this checkout's dist/cli/zoneform.js), against one emulator reset to its seed before each sample,
// its clock standing still at NOW (ZONEFORM_NOW the same) and the ids it draws seeded, so every run
// prints the same bytes. `$?` is the exit code of the line before. The emulator's port is shown as
// 8787 (and may be written so in a command). No colour, and no COLUMNS (lines are whole, as in a pipe
// or a CI log) unless a `COLUMNS=80` step sets it for the steps after it.
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const NOW = "2026-11-25T12:00:00.000Z";
/** The emulator's port as the docs show it (the tests run it on another, writing this one back). */
export const SHOWN_PORT = "8787";
const ID_SEED = 20261125;
const MARKER = /^<!-- sample(?::([^\n]*?))?(?:\n([\s\S]*?))?-->$/;

/** The Markdown files whose samples are generated. */
export function docFiles(root = ROOT) {
  const md = (dir) =>
    readdirSync(join(root, dir))
      .filter((f) => f.endsWith(".md"))
      .map((f) => `${dir}/${f}`);
  return ["README.md", ...md("docs"), ...md("docs/commands")];
}

/** The samples of one Markdown text: marker steps and the fenced block after it (line indexes). */
export function findSamples(text) {
  const lines = text.split("\n");
  const samples = [];
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].startsWith("<!-- sample")) continue;
    let end = i;
    while (end < lines.length && !lines[end].includes("-->")) end++;
    const marker = lines.slice(i, end + 1).join("\n");
    const m = MARKER.exec(marker);
    if (!m)
      throw new Error(
        `line ${i + 1}: a sample marker is <!-- sample: STEP --> or <!-- sample, then one step a line, then -->`,
      );
    const steps = [m[1], ...(m[2] ?? "").split("\n")].map((s) => (s ?? "").trim()).filter(Boolean);
    const open = end + 1;
    const fence = /^(`{3,})(.*)$/.exec(lines[open] ?? "");
    if (!fence) throw new Error(`line ${open + 1}: a sample marker must be followed at once by a fenced block`);
    let close = open + 1;
    while (close < lines.length && lines[close] !== fence[1]) close++;
    if (close >= lines.length) throw new Error(`line ${open + 1}: the sample's fenced block is not closed`);
    samples.push({ line: i + 1, steps, open, close });
  }
  return samples;
}

// Asynchronous: the emulator answers from this very process.
function run(cmd, env, cwd, port) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(
      "bash",
      ["-c", `exec 2>&1; ${cmd}`.replaceAll(`127.0.0.1:${SHOWN_PORT}`, `127.0.0.1:${port}`)],
      { cwd, env, stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (d) => (out += d));
    child.stderr.setEncoding("utf8").on("data", (d) => (err += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      // stderr is stdout (2>&1), unless the command says otherwise
      resolvePromise({ code: code ?? 1, out: `${out}${err}` });
    });
  });
}

/** Makes `bin` (if needed) and a `zoneform` in it that runs this checkout's built CLI on this process's Node. */
export function writeZoneformShim(bin) {
  mkdirSync(bin, { recursive: true });
  writeFileSync(
    join(bin, "zoneform"),
    `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, "dist/cli/zoneform.js")}" "$@"\n`,
    { mode: 0o755 },
  );
}

/** Runs one sample's steps; returns the block's new lines. */
async function runSample(sample, ctx) {
  const { emulator, seedIds } = ctx;
  await fetch(`${emulator.adminUrl}/reset`, { method: "POST" });
  seedIds(ID_SEED);
  const dir = mkdtempSync(join(tmpdir(), "zoneform-sample-"));
  try {
    cpSync(join(ROOT, "examples"), join(dir, "examples"), { recursive: true });
    if (existsSync(join(ROOT, "docs/samples")))
      cpSync(join(ROOT, "docs/samples"), join(dir, "docs/samples"), { recursive: true });
    writeZoneformShim(join(dir, ".bin"));
    mkdirSync(join(dir, ".locks"));
    const env = {
      PATH: `${join(dir, ".bin")}:${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
      HOME: dir,
      LANG: "C.UTF-8",
      TZ: "UTC",
      NO_COLOR: "1",
      ZONEFORM_NOW: NOW,
      ZONEFORM_LOCK_DIR: join(dir, ".locks"),
      CLOUDFLARE_API_BASE_URL: emulator.url,
      CLOUDFLARE_API_TOKEN: "emulator-token",
    };
    const out = [];
    let last = 0;
    for (const step of sample.steps) {
      const setVar = /^([A-Z_]+)=(\S*)$/.exec(step);
      if (setVar) {
        env[setVar[1]] = setVar[2].replaceAll(`127.0.0.1:${SHOWN_PORT}`, `127.0.0.1:${ctx.port}`);
        continue;
      }
      const shown = step.startsWith("$ ") ? "prompt" : step.startsWith("> ") ? "output" : "hidden";
      const cmd = shown === "hidden" ? step : step.slice(2);
      const r = await run(`(exit ${last}); ${cmd}`, env, dir, ctx.port);
      last = r.code;
      if (shown === "hidden") {
        if (process.env.DOCS_SAMPLES_DEBUG) process.stderr.write(`[${cmd}] exit ${r.code}\n${r.out}\n`);
        continue;
      }
      if (shown === "prompt") out.push(`$ ${cmd}`);
      const text = r.out
        .replaceAll(`127.0.0.1:${ctx.port}`, `127.0.0.1:${SHOWN_PORT}`)
        .replaceAll(`${dir}/`, "")
        .replaceAll(dir, ".")
        .replace(/\n+$/, "");
      if (text) out.push(...text.split("\n").map((l) => l.trimEnd()));
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Starts the emulator the samples run on; call close() when done. */
export async function sampleContext() {
  const dist = (p) => pathToFileURL(join(ROOT, "dist", p)).href;
  const { startEmulator } = await import(dist("emulator/index.js"));
  const { seedIds } = await import(dist("emulator/ids.js"));
  const fixed = Date.parse(NOW);
  const emulator = await startEmulator({ port: 0, host: "127.0.0.1", now: () => fixed });
  const port = new URL(emulator.url).port;
  return { emulator, seedIds, port, close: async () => (seedIds(undefined), await emulator.close()) };
}

/** The text of `file` with every sample regenerated. */
export async function regenerate(text, ctx) {
  const lines = text.split("\n");
  const samples = findSamples(text);
  // From the last to the first, so the line indexes of the earlier ones stay right.
  for (const s of samples.reverse()) {
    const body = await runSample(s, ctx);
    lines.splice(s.open + 1, s.close - s.open - 1, ...body);
  }
  return lines.join("\n");
}

async function cli(argv) {
  const check = argv.includes("--check");
  const only = argv.filter((a) => !a.startsWith("--"));
  const files = only.length > 0 ? only.map((f) => relative(ROOT, resolve(f))) : docFiles();
  const ctx = await sampleContext();
  let differ = 0;
  let count = 0;
  try {
    for (const file of files) {
      const text = readFileSync(join(ROOT, file), "utf8");
      const n = findSamples(text).length;
      if (n === 0) continue;
      count += n;
      const next = await regenerate(text, ctx);
      if (next === text) continue;
      differ++;
      if (check)
        process.stderr.write(
          `${file}: its samples differ from what the commands print (npm run docs:samples rewrites them)\n`,
        );
      else {
        writeFileSync(join(ROOT, file), next);
        process.stdout.write(`rewrote ${file}\n`);
      }
    }
  } finally {
    await ctx.close();
  }
  process.stdout.write(`${count} samples in ${files.length} files${check ? `, ${differ} file(s) differ` : ""}\n`);
  if (check && differ > 0) process.exitCode = 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await cli(process.argv.slice(2));
