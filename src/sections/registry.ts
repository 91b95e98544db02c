// The registry: every section of the file zoneform manages, in the file's order. Nothing else lists
// sections: plan and apply (the kinds and their apply order), drift, export, validate's summary, the
// 403 hints, `whoami` and the published schema all iterate this list.
//
// A new section is one folder plus one line here. The folder (src/sections/<name>/) holds:
//   - schema.json   its schema fragment: `zone` (properties of a zone), `logs` (properties under a
//                   zone's `logs`) and `$defs`; `npm run build` assembles schemas/zoneform.schema.json
//                   from schema.base.json and the fragments, in this list's order
//   - types.ts      its part of a desired zone and of a zone in the file (DesiredZone and FileZone
//                   below are derived from every section's parts)
//   - rules.ts      its semantic rules (what the schema cannot say)
//   - index.ts      one `Section` (../types.ts) declaring:
//       name         what `export --sections` takes
//       path         where it sits in a zone of the file (`logs.logpush_jobs`)
//       kinds        the resource kinds that read the live zone (the fewest calls), diff it purely and
//                    carry their API calls as data; each kind's `order` is its apply order
//       owns         whether a zone declares the section
//       normalize    the file's zone → its part of the desired zone (defaults filled)
//       export       the live zone → its part of the file (the inverse of the diff)
//       summary      its part of the line `validate --verbose` prints
//       permissions  the token permissions its calls need (read and write), with the paths they cover
//       rules        its semantic rules
//                   and exporting on purpose what other modules may use of it (nothing else of the
//                   folder is imported from outside it: test/unit/architecture/layers.test.ts)
//   - sibling files for its kinds, live normalization and export helpers
import { customFields } from "./custom_fields/index.js";
import { customHostnames } from "./custom_hostnames/index.js";
import { logpushJobs } from "./logpush_jobs/index.js";
import { pageShield } from "./page_shield/index.js";
import type { AccountBase, DesiredStateOf, ZoneBase } from "../model/index.js";
import type {
  AccountPartOf,
  AccountSection,
  FilePartOf,
  PartOf,
  ResourceKind,
  Section,
  UnionToIntersection,
} from "./types.js";
import { waf } from "./waf/index.js";

const REGISTRY = [pageShield, waf, customFields, logpushJobs, customHostnames] as const;

/** A zone of the desired state: its own fields and every section's part (from each section's types.ts). */
export type DesiredZone = ZoneBase & UnionToIntersection<PartOf<(typeof REGISTRY)[number]>>;
/** An entry of `accounts:` in the desired state: its own fields and every section's account part. */
export type DesiredAccount = AccountBase & UnionToIntersection<AccountPartOf<(typeof REGISTRY)[number]>>;
/** The desired state: the file validated and normalized (defaults filled), with every section. */
export type DesiredState = DesiredStateOf<DesiredZone, DesiredAccount>;
/** A zone as the file writes it once the schema holds: its own fields and every section's part. */
export type FileZone = { zone_id: string; name?: string; account_id?: string } & UnionToIntersection<
  FilePartOf<(typeof REGISTRY)[number]>
>;

/**
 * @public scripts/docs-keys.mjs imports it from dist/ (knip cannot follow that path).
 */
export const SECTIONS: readonly Section<any, any>[] = REGISTRY;

/** Every resource kind of every section, in apply order. */
export const RESOURCE_KINDS: readonly ResourceKind<any, DesiredZone>[] = SECTIONS.flatMap((s) => s.kinds).sort(
  (a, b) => a.order - b.order,
);

/** The sections' account parts (an entry of `accounts:` holds each one's list under its `key`). */
export const ACCOUNT_SECTIONS: readonly AccountSection<any, any>[] = SECTIONS.flatMap((s) =>
  s.account ? [s.account] : [],
);

/** Every resource kind of an account's unit, in apply order. */
export const ACCOUNT_KINDS: readonly ResourceKind<any, any>[] = ACCOUNT_SECTIONS.flatMap((s) => s.kinds).sort(
  (a, b) => a.order - b.order,
);
