// A section's own cases for the suites that hold one case per section of the registry: files in the
// section's folder, test/sections/<section>/ (the folder is the section's name, its key in the file),
// which the suite collects with Vite's import.meta.glob (vitest transforms it). Adding a section adds
// its case files and never edits a suite; a section without one fails the suite's first test, which
// names the file to create.
import { SECTIONS } from "../../src/sections/index.js";

declare global {
  interface ImportMeta {
    /**
     * Vite's import.meta.glob, in the one form the suites use (Vite's own types, vite/client, are not
     * loaded): a literal pattern relative to the file, each match imported before the file runs.
     */
    glob<M>(pattern: string, options: { eager: true }): Record<string, M>;
  }
}

export interface SectionCases<T> {
  /** Each section of the registry that has its case, in the registry's order, with the case. */
  cases: Array<[section: string, value: T]>;
  /** What is wrong, one line each: a section without its case, a case without its section or export. */
  problems: string[];
}

/**
 * The case of each section of the registry, from the modules a glob of `…/sections/<section>/<file>`
 * found: the export named `exported` of each.
 */
export function sectionCases<T>(
  modules: Record<string, Record<string, unknown>>,
  file: string,
  exported: string,
): SectionCases<T> {
  const found = new Map<string, T>();
  const problems: string[] = [];
  const names = new Set(SECTIONS.map((s) => s.name));
  for (const [path, mod] of Object.entries(modules)) {
    const section = /\/sections\/([^/]+)\/[^/]+$/.exec(path)?.[1] ?? path;
    const where = `test/sections/${section}/${file}`;
    if (!names.has(section)) problems.push(`${where}: no section of the registry is named ${section}`);
    else if (mod[exported] === undefined) problems.push(`${where}: exports no \`${exported}\``);
    else found.set(section, mod[exported] as T);
  }
  for (const s of SECTIONS) {
    if (!found.has(s.name) && !problems.some((p) => p.startsWith(`test/sections/${s.name}/`)))
      problems.push(`${s.name} has no case: create test/sections/${s.name}/${file} exporting \`${exported}\``);
  }
  const cases = SECTIONS.flatMap((s): Array<[string, T]> => (found.has(s.name) ? [[s.name, found.get(s.name)!]] : []));
  return { cases, problems };
}
