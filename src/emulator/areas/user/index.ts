// The caller itself: token verify, token details, the user of a global key.
import type { EmulatorArea } from "../../area.js";
import { routes } from "./routes.js";

export const user: EmulatorArea = { name: "user", routes };
