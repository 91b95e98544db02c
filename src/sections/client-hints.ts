// What the HTTP client is told about the products, from the sections' declarations.
// Spec: docs/architecture.md.
import type { ClientOptions } from "../cloudflare/index.js";
import { SECTIONS } from "./registry.js";
import { permissionHint } from "./permissions.js";

export const CLIENT_HINTS: Pick<ClientOptions, "permissionHint" | "idShapes"> = {
  permissionHint,
  idShapes: SECTIONS.flatMap((s) => s.ids ?? []),
};
