// Each command of the built (bundled) CLI loads only what it runs (issues 18 and 26): the executable
// (dist/cli/zoneform.js) and the chunks of the one bundle its command needs: `validate` no HTTP
// client, emulator or ajv compiler; `plan` no emulator, no ajv compiler, undici through its
// public entry; `--version` nothing but the program (not even commander); a plan file checked by its precompiled validator. What was loaded is taken from Node's own module debug log (NODE_DEBUG=esm,module), and each
// loaded file is known by the sources it holds (esbuild marks each bundled file with a `// <path>`
// comment). The executable refuses an older Node in one line, and turns on Node's compile cache.
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import Module from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { BUILT_CLI, runBuilt } from "../attacks/helpers.js";
import { TestEmulator, writeConfig, zoneId } from "../helpers/cli.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const emu = TestEmulator.perFile();

/** The files of the repository a run loaded, as Node's module debug log names them. */
function loadedFiles(debugLog: string): Set<string> {
  const files = new Set<string>();
  for (const m of debugLog.matchAll(/(?:file:\/\/)?(\/[^\s"',]+\.(?:js|cjs|mjs))/g)) {
    const file = m[1]!;
    if (file.startsWith(ROOT) && !file.includes("/node_modules/.")) files.add(file);
  }
  return files;
}

/** The sources a run loaded: `node_modules/<package>/…` and `dist/<folder>/…` paths, bundled or not. */
function loadedSources(debugLog: string): Set<string> {
  const files = loadedFiles(debugLog);
  const sources = new Set<string>();
  for (const file of files) {
    const rel = path.relative(ROOT, file);
    sources.add(rel);
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    for (const c of text.matchAll(/^\/\/ ((?:node_modules|dist|scripts)\/\S+)$/gm)) sources.add(c[1]!);
  }
  return sources;
}

const has = (sources: Set<string>, prefix: string) => [...sources].some((s) => s.startsWith(prefix));

async function run(argv: string[], env: Record<string, string> = {}) {
  const r = await runBuilt(argv, { env: { NODE_DEBUG: "esm,module", ...env } });
  const out = r.stdout.replace(/^(ESM|MODULE) \d+:.*$/gm, "").trim();
  return {
    ...r,
    out,
    sources: loadedSources(r.stderr),
    files: [...loadedFiles(r.stderr)].map((f) => path.relative(ROOT, f)),
  };
}

const CONFIG = `version: 1
zones:
  - zone_id: a6090c8648694262ae990706d1a149ac
    name: example.dev
    page_shield:
      enabled: true
`;

describe("what each command loads", () => {
  it("--version: the program's chunk alone, without commander, the configuration loader, yaml, the sections or undici", async () => {
    const r = await run(["--version"]);
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    for (const absent of [
      "node_modules/commander/",
      "node_modules/yaml/",
      "dist/config/",
      "dist/sections/",
      "node_modules/undici/",
      "dist/plan/",
    ]) {
      expect(has(r.sources, absent), absent).toBe(false);
    }
  });

  it("validate: the executable and its chunks, with no HTTP client, emulator or ajv compiler in them", async () => {
    const config = await writeConfig(CONFIG);
    const r = await run(["validate", "-c", config]);
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(r.sources.has("dist/cli/zoneform.js")).toBe(true);
    expect(has(r.sources, "dist/cli/bundle-")).toBe(true);
    // Only the bundle and the precompiled schema validator (with the part of ajv's runtime it requires):
    // no module of dist/ or node_modules/ is loaded on its own.
    const alone = r.files.filter((f) => !/^dist\/cli\/(?:zoneform\.js|bundle-\w+\.js|schema-validator\.cjs)$/.test(f));
    expect(alone.filter((f) => !f.startsWith("node_modules/ajv/dist/runtime/"))).toEqual([]);
    expect(has(r.sources, "node_modules/yaml/")).toBe(true);
    for (const absent of [
      "node_modules/undici/",
      "dist/emulator/",
      "node_modules/ajv/dist/compile/",
      "dist/cloudflare/",
      "node_modules/js-yaml/",
    ]) {
      expect(has(r.sources, absent), absent).toBe(false);
    }
  });

  it("validate: reports a problem at its position (the yaml package, inside the bundle)", async () => {
    const config = await writeConfig(CONFIG.replace("enabled: true", "enabled: yes"));
    const r = await run(["validate", "-c", config]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/zoneform\.yaml:6:16 +\/zones\/0\/page_shield\/enabled/);
  });

  it("plan: the HTTP client, never the emulator or the ajv compiler", async () => {
    const config = await writeConfig(CONFIG);
    const r = await run(["plan", "-c", config, "--api-url", emu.url]);
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    // undici through its public entry.
    expect(has(r.sources, "node_modules/undici/index.js")).toBe(true);
    for (const absent of ["dist/emulator/", "node_modules/ajv/dist/compile/"]) {
      expect(has(r.sources, absent), absent).toBe(false);
    }
  });

  it("audit of the payment pages' headers: undici through its public entry for the pages too", async () => {
    const server = createServer((_req, res) => res.writeHead(200, { "x-frame-options": "DENY" }).end("<html>"));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      await emu.admin("POST", "/zones", { name: "pay.example", plan: "enterprise" });
      const page = `http://127.0.0.1:${(server.address() as { port: number }).port}/checkout`;
      const config = await writeConfig(
        `version: 1\nzones:\n  - zone_id: ${zoneId("pay.example")}\n    name: pay.example\n    page_shield:\n` +
          "      script_inventory:\n        pages: [pay.example/checkout*]\n        authorized: []\n" +
          `        headers:\n          urls: [${page}]\n          pinned: { x-frame-options: DENY }\n`,
      );
      const r = await run(["audit", "-c", config, "--api-url", emu.url, "--allow-private-addresses"]);
      expect(r.code, r.stderr.slice(-2000)).toBe(0);
      expect(r.out).toMatch(/\/checkout\s+1\s+as pinned/);
      expect(has(r.sources, "node_modules/undici/index.js")).toBe(true);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it("apply of a saved plan: the precompiled plan validator checks the file, not ajv's compiler", async () => {
    const config = await writeConfig(CONFIG);
    const out = path.join(path.dirname(config), "plan.json");
    expect((await runBuilt(["plan", "-c", config, "--api-url", emu.url, "--out", out])).code).toBe(0);
    const r = await run(["apply", out, "--api-url", emu.url, "--auto-approve"]);
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(has(r.sources, "dist/cli/plan-validator.cjs")).toBe(true);
    expect(has(r.sources, "node_modules/ajv/dist/compile/")).toBe(false);
  });
});

describe("the executable", () => {
  const major = Number(process.versions.node.split(".")[0]);
  const hasCompileCache = typeof (Module as { enableCompileCache?: unknown }).enableCompileCache === "function";

  it("on a Node older than package.json's engines: one line naming the supported versions, exit 1", async () => {
    // The Node running the tests, made to say it is 18.20.0 before the executable starts.
    const dir = mkdtempSync(path.join(tmpdir(), "zoneform-old-node-"));
    const preload = path.join(dir, "old-node.cjs");
    writeFileSync(
      preload,
      `Object.defineProperty(process, "version", { value: "v18.20.0" });\nObject.defineProperty(process, ` +
        `"versions", { value: { ...process.versions, node: "18.20.0" } });\n`,
    );
    const r = await runBuilt(["validate", "-c", "nothing.yaml"], { env: { NODE_OPTIONS: `--require ${preload}` } });
    const engines = (JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { engines: { node: string } })
      .engines.node;
    expect(r.stderr).toBe(
      `zoneform needs Node.js ${engines} (the supported lines are 22, 24 and 26); this is Node.js v18.20.0.\n`,
    );
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
  });

  it(
    "is written in syntax that an old Node parses: no optional chaining, nullish operator, static import " +
      "but the bundler's own, top-level await",
    () => {
      const text = readFileSync(BUILT_CLI, "utf8");
      const code = text.replace(/^#!.*\n/, "").replace(/^\s*\/\/.*$/gm, "");
      expect(code).not.toMatch(/\?\.|\?\?|^\s*await\b|=>/m);
      expect([...code.matchAll(/^import .*$/gm)].map((m) => m[0])).toEqual([
        expect.stringMatching(/^import \{ createRequire as __zoneformCreateRequire \} from "module";/),
      ]);
    },
  );

  it.runIf(major >= 22 && hasCompileCache)(
    "turns on Node's compile cache (in the temporary directory) before it loads the program",
    async () => {
      const dir = mkdtempSync(path.join(tmpdir(), "zoneform-tmp-"));
      const config = await writeConfig(CONFIG);
      const r = await runBuilt(["validate", "-c", config], { env: { TMPDIR: dir } });
      expect(r.code, r.stderr).toBe(0);
      const cache = path.join(dir, "node-compile-cache");
      expect(existsSync(cache)).toBe(true);
      const cached = readdirSync(cache, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
      expect(cached.length).toBeGreaterThan(1);
    },
  );
});
