// The registry: every section of the file zoneform manages, in the file's order. Nothing else lists
// sections: plan and apply (the kinds and their apply order), drift, export, validate's summary, the
// 403 hints, `whoami` and the published schema all iterate this list.
//
// A new section is one folder plus one line here. The folder (src/sections/<name>/) holds:
//   - schema.json   its schema fragment: `zone` (properties of a zone), `logs` (properties under a
//                   zone's `logs`) and `$defs`; `npm run build` assembles schemas/zoneform.schema.json
//                   from schema.base.json and the fragments, in this list's order
//   - index.ts      one `Section` (types.ts) declaring:
//       name         what `export --sections` takes
//       path         where it sits in a zone of the file (`logs.logpush_jobs`)
//       kinds        the resource kinds that read the live zone (the fewest calls), diff it purely and
//                    carry their API calls as data; each kind's `order` is its apply order
//       owns         whether a zone declares the section
//       normalise    the file's zone → its part of the desired zone (defaults filled)
//       export       the live zone → its part of the file (the inverse of the diff)
//       summary      its part of the line `validate --verbose` prints
//       permissions  the token permissions its calls need (read and write), with the paths they cover
//   - sibling files for its kinds, live normalisation and export helpers
import { customFields } from "./custom-fields/index.js";
import { customHostnames } from "./custom-hostnames/index.js";
import { logpushJobs } from "./logpush/index.js";
import { pageShield } from "./page-shield/index.js";
import type { ResourceKind, Section } from "./types.js";
import { waf } from "./waf/index.js";

export const SECTIONS: readonly Section[] = [
  pageShield,
  waf,
  customFields,
  logpushJobs,
  customHostnames,
];

/** Every resource kind of every section, in apply order. */
export const RESOURCE_KINDS: readonly ResourceKind<any>[] = SECTIONS.flatMap((s) => s.kinds).sort((a, b) => a.order - b.order);

export type { Section, SectionPermission, ResourceKind, ReadContext, LiveRead, DiffResult } from "./types.js";
