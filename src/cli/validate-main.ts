// `zoneform validate` alone: what the executable (scripts/bundle/zoneform.cjs) runs for `validate …`,
// bundled on its own as CommonJS with a V8 code cache (scripts/bundle-cli.mjs), because `validate`
// is run from editors and pre-commit hooks and its whole cost is the start.
import { register } from "./commands/validate.js";
import { mainWith } from "./program-core.js";
import { run } from "./run.js";

void run((argv, io) =>
  mainWith({ alone: { validate: async () => ({ register }) }, all: async () => ({ registerCommands: (program, ctx) => register(program, ctx) }) }, argv, io),
);
