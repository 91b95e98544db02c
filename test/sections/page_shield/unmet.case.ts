import type { UnmetCase } from "../unmet-helpers.js";

// A setting the file manages that the answer does not hold: never read as "off".
export const unmet: UnmetCase = async ({ emu, zone }) => {
  // The emulator answers the settings it holds; one it does not hold is left out of the answer.
  const settings = emu.state().zones.find((z) => z.id === zone)!.page_shield as Record<string, unknown>;
  delete settings.use_connection_url_path;
  return { yaml: "page_shield:\n  use_connection_url_path: true\n", says: "use_connection_url_path is missing" };
};
