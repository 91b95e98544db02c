// The script inventories of a configuration, for `audit -c`, `inventory --merge` and `csp suggest --from-inventory`:
// -c PATH, else ./zoneform.yaml when it exists.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { readConfigFiles, type SourceFile, checkConfigSources, configError } from "../config/index.js";
import { DEFAULT_CONFIG_PATH } from "../model/index.js";
import { formatProblem } from "../errors.js";
import { scriptInventoryOf, type DesiredState, type DesiredZone } from "../sections/index.js";
import type { ScriptInventory } from "../inventory/index.js";
import { hideVariables, type CliIO } from "./io.js";
import { tokenVariables } from "./account-tokens.js";

interface ConfiguredInventory {
  zone_id: string;
  name?: string;
  inventory: ScriptInventory;
  source?: string;
}

export interface LoadedInventories {
  path: string;
  zones: ConfiguredInventory[];
  all: DesiredZone[];
  desired: DesiredState;
  sources: SourceFile[];
}

/** The inventories of -c PATH (or ./zoneform.yaml if present; undefined when neither). */
export async function loadInventories(config: string | undefined, io: CliIO): Promise<LoadedInventories | undefined> {
  const path = config ?? DEFAULT_CONFIG_PATH;
  if (config === undefined && !existsSync(resolve(io.cwd, path))) return undefined;
  // As loadConfig does, keeping the files' text.
  const sources = await readConfigFiles(path, io.cwd);
  const checked = checkConfigSources(sources, io.env, "warning");
  if (checked.errors.length > 0 || !checked.desired) throw configError(checked.errors, checked.warnings);
  const { desired, warnings } = checked;
  hideVariables(io, [...desired.secrets.names, ...tokenVariables(desired)]);
  for (const w of warnings) io.stderr.write(`${formatProblem(w)}\n`);
  const zones = desired.zones.flatMap((z): ConfiguredInventory[] => {
    const inventory = scriptInventoryOf(z);
    if (!inventory) return [];
    return [
      {
        zone_id: z.zone_id,
        ...(z.name !== undefined ? { name: z.name } : {}),
        inventory,
        ...(z.source ? { source: `${z.source.file}:${z.source.line}` } : {}),
      },
    ];
  });
  return { path, zones, all: desired.zones, desired, sources };
}
