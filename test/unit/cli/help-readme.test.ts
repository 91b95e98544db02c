// `--help` and the docs agree: every command (and subcommand) has a page, docs/commands/<name>.md, and
// every flag a command takes is named on that page or among the common flags described once, in
// docs/commands/README.md.
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { memoryIO } from "../../../src/cli/io.js";
import { buildProgram } from "../../../src/cli/build-program.js";
import { main } from "../../../src/cli/program.js";

const DOCS = resolve(import.meta.dirname, "../../../docs/commands");
const COMMON_PAGE = readFileSync(resolve(DOCS, "README.md"), "utf8");

/** Flags described once for all commands, in docs/commands/README.md. */
const COMMON = [
  "--help",
  "--config",
  "--zone",
  "--verbose",
  "--quiet",
  "--no-color",
  "--api-url",
  "--allow-insecure-http",
  "--parallelism",
  "--rate-limit",
  "--timeout",
  "--retries",
  "--max-list-items",
  "--max-list-pages",
  "--max-wait",
  "--deadline",
  "--max-body-size",
  "--max-read-bytes",
  "--shard",
];

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

/** The page of the command `path` names first (`csp suggest` → docs/commands/csp.md), if there is one. */
function sectionFor(path: string): string | undefined {
  const file = resolve(DOCS, `${path.split(" ")[0]!}.md`);
  if (!existsSync(file)) return undefined;
  const text = readFileSync(file, "utf8");
  expect(text, file).toMatch(new RegExp(`^# zoneform ${path.split(" ")[0]}\\b`, "m"));
  return text;
}

const program = await buildProgram({ io: memoryIO().io, setExit: () => undefined });
const commands = leafCommands(program);

describe("--help and the docs", () => {
  it("finds every command", () => {
    expect(commands.map((c) => c.path)).toEqual(
      expect.arrayContaining([
        "validate",
        "plan",
        "apply",
        "drift",
        "emulator",
        "audit",
        "csp suggest",
        "export",
        "certificates",
        "waf-migration start",
        "logpush challenge",
      ]),
    );
  });

  for (const { path, cmd } of commands) {
    it(`documents \`zoneform ${path}\` and each of its flags`, async () => {
      const section = sectionFor(path);
      expect(section, `no page docs/commands/${path.split(" ")[0]}.md`).toBeDefined();
      if (path.includes(" ")) expect(section).toContain(path.split(" ")[1]);
      const flags = cmd.options.map((o) => o.long!).filter((f) => f && !COMMON.includes(f));
      for (const flag of flags)
        expect(section, `docs/commands/${path.split(" ")[0]}.md does not mention ${flag}`).toContain(flag);
      const { io, stdout } = memoryIO();
      expect(await main([...path.split(" "), "--help"], io)).toBe(0);
      expect(stdout()).toContain(`Usage: zoneform ${path}`);
    });
  }

  it("describes the common flags once, on the commands' index page", () => {
    for (const flag of COMMON.filter((f) => f !== "--help")) expect(COMMON_PAGE).toContain(flag);
  });
});
