// The program with every command, which the executable (zoneform.ts) imports once it has checked the Node version
// and turned on the compile cache.
import { main } from "./program.js";
import { run } from "./run.js";

await run(main);
