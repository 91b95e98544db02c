// Issue 38: the common flags (docs/commands/README.md) are accepted by every command of the program,
// its subcommands included: each leaf command parses `--verbose --quiet --no-color` with nothing unknown.
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { memoryIO } from "../../../src/cli/io.js";
import { buildProgram } from "../../../src/cli/build-program.js";

function leaves(cmd: Command, prefix: string[] = []): Array<{ path: string; cmd: Command }> {
  return cmd.commands
    .filter((c) => c.name() !== "help")
    .flatMap((c) =>
      c.commands.length > 0 ? leaves(c, [...prefix, c.name()]) : [{ path: [...prefix, c.name()].join(" "), cmd: c }],
    );
}

const program = await buildProgram({ io: memoryIO().io, setExit: () => undefined });
const commands = leaves(program);

describe("the common flags, in every command", () => {
  it("walks every command of the program", () => {
    expect(commands.length).toBeGreaterThanOrEqual(17);
    expect(commands.map((c) => c.path)).toEqual(
      expect.arrayContaining(["certificates", "logpush challenge", "whoami", "emulator", "waf-migration start"]),
    );
  });

  for (const { path, cmd } of commands) {
    it(`\`zoneform ${path}\` takes --verbose, --quiet and --no-color`, () => {
      const parsed = cmd.parseOptions(["--verbose", "--quiet", "--no-color"]);
      expect(parsed.unknown, path).toEqual([]);
      for (const flag of ["--verbose", "--quiet", "--no-color"])
        expect(
          cmd.options.some((o) => o.long === flag),
          `${path} ${flag}`,
        ).toBe(true);
      // The flags land in the command's options (as a command's action reads them).
      expect(cmd.opts()).toMatchObject({ verbose: true, quiet: true, color: false });
    });
  }
});
