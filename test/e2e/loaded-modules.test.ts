// Each command of the built (bundled) CLI loads only what it runs (issue 18): `validate` its own
// bundle, which holds no HTTP client, emulator or ajv compiler; `plan` no emulator, no ajv compiler
// and, for a valid file, not the yaml package; ajv only when a plan file is read. What was loaded is
// taken from Node's own module debug log (NODE_DEBUG=esm,module), and each loaded file is known by the
// sources it holds (esbuild marks each bundled file with a `// <path>` comment).
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runBuilt } from "../attacks/helpers.js";
import { TestEmulator, writeConfig } from "../helpers/cli.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const emu = TestEmulator.perFile();

/** The sources a run loaded: `node_modules/<package>/…` and `dist/<folder>/…` paths, bundled or not. */
function loadedSources(debugLog: string): Set<string> {
  const files = new Set<string>();
  for (const m of debugLog.matchAll(/(?:file:\/\/)?(\/[^\s"',]+\.(?:js|cjs|mjs))/g)) {
    const file = m[1]!;
    if (file.startsWith(ROOT) && !file.includes("/node_modules/.")) files.add(file);
  }
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
  return { ...r, out, sources: loadedSources(r.stderr) };
}

const CONFIG = `version: 1
zones:
  - zone_id: a6090c8648694262ae990706d1a149ac
    name: example.dev
    page_shield:
      enabled: true
`;

describe("what each command loads", () => {
  it("validate: its own bundle (validate.cjs), with no HTTP client, emulator or ajv compiler in it, and no other module", async () => {
    const config = await writeConfig(CONFIG);
    const r = await run(["validate", "-c", config]);
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    // The executable compiles validate.cjs itself (with its code cache): not the program of every command.
    expect(has(r.sources, "dist/cli/validate.cjs")).toBe(true);
    expect([...r.sources].filter((s) => s.startsWith("dist/cli/bundle-") || s === "dist/cli/main.js")).toEqual([]);
    const bundled = loadedSources(path.join(ROOT, "dist/cli/validate.cjs"));
    expect(has(bundled, "node_modules/js-yaml/")).toBe(true);
    for (const absent of ["node_modules/undici/", "dist/emulator/", "node_modules/ajv/dist/compile/", "dist/cloudflare/"]) {
      expect(has(bundled, absent), absent).toBe(false);
    }
  });

  it("validate: reports a problem at its position (the yaml package, inside its bundle)", async () => {
    const config = await writeConfig(CONFIG.replace("enabled: true", "enabled: yes"));
    const r = await run(["validate", "-c", config]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/zoneform\.yaml:6:16 +\/zones\/0\/page_shield\/enabled/);
  });

  it("plan: the HTTP client, never the emulator or the ajv compiler", async () => {
    const config = await writeConfig(CONFIG);
    const r = await run(["plan", "-c", config, "--api-url", emu.url]);
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(has(r.sources, "node_modules/undici/lib/dispatcher/agent.js")).toBe(true);
    // Only what the client uses of undici: no WebSocket, cookies, caches or mocks.
    for (const absent of ["dist/emulator/", "node_modules/ajv/dist/compile/", "node_modules/yaml/", "node_modules/undici/lib/web/websocket/", "node_modules/undici/lib/web/cookies/", "node_modules/undici/lib/mock/", "node_modules/undici/lib/cache/"]) {
      expect(has(r.sources, absent), absent).toBe(false);
    }
  });

  it("apply of a saved plan: ajv, to check the file", async () => {
    const config = await writeConfig(CONFIG);
    const out = path.join(path.dirname(config), "plan.json");
    expect((await runBuilt(["plan", "-c", config, "--api-url", emu.url, "--out", out])).code).toBe(0);
    const r = await run(["apply", out, "--api-url", emu.url, "--auto-approve"]);
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(has(r.sources, "node_modules/ajv/dist/compile/")).toBe(true);
  });
});
