// `--help` and the README agree: every command (and subcommand) has a README section, and every flag a
// command takes is named in that section or among the common flags the README describes once.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { memoryIO } from "../../../src/cli/io.js";
import { buildProgram, main } from "../../../src/cli/program.js";

const README = readFileSync(resolve(import.meta.dirname, "../../../README.md"), "utf8");

/** Flags described once for all commands (README "Commands" intro and "Connecting to Cloudflare"). */
const COMMON = ["--help", "--config", "--zone", "--verbose", "--quiet", "--no-color", "--api-url", "--parallelism", "--rate-limit", "--timeout", "--retries", "--shard"];

function leafCommands(cmd: Command, prefix: string[] = []): Array<{ path: string; cmd: Command }> {
  const out: Array<{ path: string; cmd: Command }> = [];
  for (const sub of cmd.commands) {
    if (sub.name() === "help") continue;
    const path = [...prefix, sub.name()];
    if (sub.commands.length > 0) out.push(...leafCommands(sub, path));
    else out.push({ path: path.join(" "), cmd: sub });
  }
  return out;
}

/** The README text from `### zoneform <first word of path>` to the next heading of that level or above. */
function sectionFor(path: string): string | undefined {
  const top = path.split(" ")[0]!;
  const heading = new RegExp(`^### zoneform ${top}\\b.*$`, "m");
  const m = heading.exec(README);
  if (!m) return undefined;
  const rest = README.slice(m.index + m[0].length);
  const end = rest.search(/^#{2,3} /m);
  return end < 0 ? rest : rest.slice(0, end);
}

const program = await buildProgram({ io: memoryIO().io, setExit: () => undefined });
const commands = leafCommands(program);

describe("--help and the README", () => {
  it("finds every command", () => {
    expect(commands.map((c) => c.path)).toEqual(
      expect.arrayContaining(["validate", "plan", "apply", "drift", "emulator", "audit", "csp suggest", "export", "certificates", "waf-migration start", "logpush challenge"]),
    );
  });

  for (const { path, cmd } of commands) {
    it(`documents \`zoneform ${path}\` and each of its flags`, async () => {
      const section = sectionFor(path);
      expect(section, `README has no "### zoneform ${path.split(" ")[0]}" section`).toBeDefined();
      if (path.includes(" ")) expect(section).toContain(path.split(" ")[1]);
      const flags = cmd.options.map((o) => o.long!).filter((f) => f && !COMMON.includes(f));
      for (const flag of flags) expect(section, `README section for ${path} does not mention ${flag}`).toContain(flag);
      const { io, stdout } = memoryIO();
      expect(await main([...path.split(" "), "--help"], io)).toBe(0);
      expect(stdout()).toContain(`Usage: zoneform ${path}`);
    });
  }

  it("describes the common flags once", () => {
    for (const flag of COMMON.filter((f) => f !== "--help")) expect(README).toContain(flag);
  });
});
