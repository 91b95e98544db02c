// `--zone ID|NAME` (repeatable): the zones of a loaded configuration it names.
import { UsageError } from "../errors.js";
import type { DesiredState } from "../sections/index.js";

/** Keeps the zones named by --zone (all when none is given). */
export function zonesNamed(desired: DesiredState, wanted: string[] | undefined): DesiredState {
  if (!wanted || wanted.length === 0) return desired;
  const key = (s: string) => s.trim().toLowerCase().replace(/\.$/, "");
  const matches = (z: DesiredState["zones"][number], w: string) =>
    key(z.zone_id) === key(w) || (z.name !== undefined && key(z.name) === key(w));
  const unknown = wanted.filter((w) => !desired.zones.some((z) => matches(z, w)));
  if (unknown.length > 0) {
    throw new UsageError(
      `--zone ${unknown.join(", ")}: no such zone in the configuration (give a zone_id or name from the file)`,
    );
  }
  return { ...desired, zones: desired.zones.filter((z) => wanted.some((w) => matches(z, w))) };
}
