// cli: what other layers use of it (its front door).
export { planForShow } from "./commands/show.js";
export type { CliIO } from "./io.js";
export { main } from "./program.js";
