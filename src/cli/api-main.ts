// The commands that call the API (commands/api-commands.ts): what the executable
// (scripts/bundle/zoneform.cjs) runs for them, bundled as CommonJS with a V8 code cache
// (scripts/bundle-cli.mjs), like validate-main.ts. The executable sends every other command line
// (help, a typo, `validate`, `emulator`) elsewhere.
import { API_COMMANDS } from "./commands/api-commands.js";
import { mainWith } from "./program-core.js";
import { UsageError } from "../errors.js";
import { run } from "./run.js";

void run((argv, io) =>
  mainWith(
    {
      alone: API_COMMANDS,
      all: () => Promise.reject(new UsageError(`unknown command '${argv[0]}' (run zoneform --help for the commands)`)),
    },
    argv,
    io,
  ),
);
