// Every resource kind zoneform manages, in apply order.
import { logCustomFields } from "./custom-fields.js";
import { customHostnames } from "./custom-hostnames.js";
import { logpushJobs } from "./logpush-jobs.js";
import { pageShieldPolicies } from "./page-shield-policies.js";
import { pageShieldSettings } from "./page-shield-settings.js";
import type { ResourceKind } from "./types.js";
import { wafManagedRules } from "./waf-managed.js";

export const RESOURCE_KINDS: ResourceKind<any>[] = [pageShieldSettings, pageShieldPolicies, logpushJobs, wafManagedRules, logCustomFields, customHostnames].sort(
  (a, b) => a.order - b.order,
);

export type { ResourceKind, ReadContext, LiveRead, DiffResult } from "./types.js";
