// The `# yaml-language-server: $schema=` reference `export` and `waf-migration config` write: a path to the draft-07
// schema (the one editors handle fully) that works from the written file's own folder on any machine that has the
// project, or nothing.
// Spec: docs/commands/export.md.
import { existsSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** The schema editors are pointed at, inside the package (written by scripts/build-schema.mjs). */
export const EDITOR_SCHEMA_PATH = ["schemas", "zoneform.schema.draft-07.json"] as const;

/** The root of the zoneform package that runs (this module is src/cli/… or dist/cli/…). */
export const RUNNING_PACKAGE_ROOT = fileURLToPath(new URL("../../", import.meta.url));

function asRef(fromDir: string, file: string): string {
  const rel = relative(fromDir, file).split(sep).join("/");
  return rel.startsWith(".") ? rel : `./${rel}`;
}

/**
 * The `$schema` reference for a file written into `outputDir` (relative, `./` or `../` first), or undefined when no
 * reference would work from there on another machine.
 */
export function schemaRefFrom(outputDir: string, packageRoot: string = RUNNING_PACKAGE_ROOT): string | undefined {
  const from = resolve(outputDir);
  for (let dir = from; ; dir = dirname(dir)) {
    const installed = join(dir, "node_modules", "zoneform", ...EDITOR_SCHEMA_PATH);
    if (existsSync(installed)) return asRef(from, installed);
    if (dirname(dir) === dir) break;
  }
  const root = resolve(packageRoot);
  const inside = relative(root, from);
  const checkout = join(root, ...EDITOR_SCHEMA_PATH);
  if (existsSync(checkout) && !inside.startsWith("..") && !isAbsolute(inside)) return asRef(from, checkout);
  return undefined;
}
