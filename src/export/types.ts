// The sections a user can ask `export` for: the registry's, by name.
import { SECTIONS } from "../sections/index.js";

export {
  escapeTemplates,
  newNotes,
  type EnvVarNote,
  type ExportNotes,
  type SectionContext,
} from "../sections/export-context.js";

export const EXPORT_SECTIONS: readonly string[] = SECTIONS.map((s) => s.name);
export type ExportSection = string;
