// The sections a user can ask `export` for: the registry's, by name.
import { SECTIONS } from "../sections/index.js";

export {
  escapeTemplates,
  newNotes,
  type ExportNotes,
  type SectionContext,
} from "../sections/index.js";

export const EXPORT_SECTIONS: readonly string[] = SECTIONS.map((s) => s.name);
export type ExportSection = string;

export function exportSectionNamed(name: string): ExportSection | undefined {
  return SECTIONS.find((s) => s.name === name || s.formerNames?.includes(name))?.name;
}
