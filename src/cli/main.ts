// The program with every command (scripts/bundle/zoneform.cjs, the `zoneform` executable, starts it
// for every command line but `validate …`).
import { main } from "./program.js";
import { run } from "./run.js";

await run(main);
