// The registry: every section of the file zoneform manages, in the file's order; nothing else lists sections.
// Spec: docs/architecture.md, Sections; adding one: docs/contributing.md, Adding a section.
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

export type DesiredZone = ZoneBase & UnionToIntersection<PartOf<(typeof REGISTRY)[number]>>;
/** An entry of `accounts:` in the desired state: its own fields and every section's account part. */
export type DesiredAccount = AccountBase & UnionToIntersection<AccountPartOf<(typeof REGISTRY)[number]>>;
/** The desired state: the file validated and normalized (defaults filled), with every section. */
export type DesiredState = DesiredStateOf<DesiredZone, DesiredAccount>;
export type FileZone = { zone_id: string; name?: string; account_id?: string } & UnionToIntersection<
  FilePartOf<(typeof REGISTRY)[number]>
>;

/** @public scripts/docs-keys.mjs imports it from dist/ (knip cannot follow that path). */
export const SECTIONS: readonly Section<any, any>[] = REGISTRY;

export const RESOURCE_KINDS: readonly ResourceKind<any, DesiredZone>[] = SECTIONS.flatMap((s) => s.kinds).sort(
  (a, b) => a.order - b.order,
);

/** The sections' account parts (an entry of `accounts:` holds each one's list under its `key`). */
export const ACCOUNT_SECTIONS: readonly AccountSection<any, any>[] = SECTIONS.flatMap((s) =>
  s.account ? [s.account] : [],
);

export const ACCOUNT_KINDS: readonly ResourceKind<any, any>[] = ACCOUNT_SECTIONS.flatMap((s) => s.kinds).sort(
  (a, b) => a.order - b.order,
);
