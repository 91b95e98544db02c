// A command's exit does not wait for V8 to compile undici's HTTP parser again (issue 39): the CLI makes undici's
// WebAssembly parser with a tiering budget its answers never use up, so V8 never starts the background TurboFan
// compile that a process must finish before it ends (src/cloudflare/first-tier-parser.ts). V8's
// --trace-wasm-compilation-times prints a line for each TurboFan compile; the same calls from a client without the
// option are the control (a few calls already start one: so did a 1-zone plan before), so the test fails if the
// option stops working.
import { execFileSync, spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { V8_DEFAULT_WASM_TIERING_BUDGET } from "../../src/cloudflare/first-tier-parser.js";
import { BUILT_CLI } from "../attacks/helpers.js";
import { TestEmulator, TOKEN, writeConfig } from "../helpers/cli.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const LIBRARY = pathToFileURL(path.join(ROOT, "dist/index.js")).href;
const TRACE = "--trace-wasm-compilation-times";
const emu = TestEmulator.perFile();
// One of the emulator's seed zones, as test/e2e/loaded-modules.test.ts plans it.
const CONFIG =
  "version: 1\nzones: [{ zone_id: a6090c8648694262ae990706d1a149ac, name: example.dev, page_shield: { enabled: true } }]\n";

function node(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", NO_COLOR: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, out }));
  });
}

/** 10 calls through the library's client, with or without the option, in a process tracing V8's compiles. */
function libraryCalls(firstTierParser: boolean, nodeFlags: string[] = []) {
  const script = `
    const { createClient } = await import(${JSON.stringify(LIBRARY)});
    const client = createClient({ baseUrl: ${JSON.stringify(emu.url)}, auth: { token: ${JSON.stringify(TOKEN)} },
      firstTierParser: ${firstTierParser} });
    for (let i = 0; i < 10; i++) await client.requestEnvelope("GET", "/zones");
    await client.close();
    console.log("done");`;
  return node([TRACE, ...nodeFlags, "--input-type=module", "-e", script]);
}

const turbofan = (out: string) => out.split("\n").filter((l) => / using TurboFan/.test(l));

describe("undici's parser at V8's first tier", () => {
  it("the default budget the option sets back is this Node's own", () => {
    const options = execFileSync(process.execPath, ["--v8-options"], { encoding: "utf8", maxBuffer: 16 << 20 });
    expect(options).toContain(`default: --wasm-tiering-budget=${V8_DEFAULT_WASM_TIERING_BUDGET}\n`);
  });

  it("without the option, the calls have V8 compile the parser again (the control)", async () => {
    const r = await libraryCalls(false);
    expect(r.out).toContain("done");
    expect(turbofan(r.out).length).toBeGreaterThan(0);
  });

  it("with it, V8 never does", async () => {
    const r = await libraryCalls(true);
    expect(r.out).toContain("done");
    expect(turbofan(r.out)).toEqual([]);
  });

  it("a process given V8's WebAssembly flags is left to them: the option changes nothing", async () => {
    // V8's own default, given on the command line: the tiering is as without the option.
    const r = await libraryCalls(true, [`--wasm-tiering-budget=${V8_DEFAULT_WASM_TIERING_BUDGET}`]);
    expect(r.out).toContain("done");
    expect(turbofan(r.out).length).toBeGreaterThan(0);
  });

  it("a command's calls do not either", async () => {
    const file = await writeConfig(CONFIG);
    for (const argv of [
      ["plan", "-c", file],
      ["export", "--zone", "example.dev"],
    ]) {
      const r = await node([TRACE, BUILT_CLI, ...argv, "--api-url", emu.url], { CLOUDFLARE_API_TOKEN: TOKEN });
      expect(r.code, r.out).toBe(0);
      expect(turbofan(r.out)).toEqual([]);
    }
  });
});
