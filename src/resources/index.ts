// Every resource kind zoneform manages, in apply order.
import { pageShieldPolicies } from "./page-shield-policies.js";
import { pageShieldSettings } from "./page-shield-settings.js";
import type { ResourceKind } from "./types.js";

export const RESOURCE_KINDS: ResourceKind<any>[] = [pageShieldSettings, pageShieldPolicies].sort(
  (a, b) => a.order - b.order,
);

export type { ResourceKind, ReadContext, LiveRead, DiffResult } from "./types.js";
