// The caller itself: the token check, a token's details and the user of a global key.
import type { EmulatorArea } from "../../area.js";
import { routes } from "./routes.js";

export const user: EmulatorArea = { name: "user", routes };
