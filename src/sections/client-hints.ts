// What the HTTP client is told about the products, from the sections' declarations: the client speaks
// HTTP and Cloudflare envelopes and knows no product. The CLI (src/cli/client-options.ts) and the
// library (src/index.ts) pass these to every client they make.
import type { ClientOptions } from "../cloudflare/index.js";
import { SECTIONS } from "./registry.js";
import { permissionHint } from "./permissions.js";

export const CLIENT_HINTS: Pick<ClientOptions, "permissionHint" | "idShapes"> = {
  permissionHint,
  idShapes: SECTIONS.flatMap((s) => s.ids ?? []),
};
