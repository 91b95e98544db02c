// The export layer's front door: what other layers use of `zoneform export` (./zones.ts reads the live zones and
// writes them in the file's shape).
export { EXPORT_SECTIONS, exportSectionNamed, type ExportSection } from "./types.js";
export { exportZones, type ExportOptions, type ExportResult } from "./zones.js";
