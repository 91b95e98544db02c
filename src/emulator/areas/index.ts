// Every API area's routes in one list, for the router.
import type { Route } from "../types.js";
import { routes as customHostnames } from "./custom-hostnames.js";
import { routes as logpush } from "./logpush.js";
import { routes as pageShield } from "./page-shield.js";
import { routes as rulesets } from "./rulesets.js";
import { routes as wafMigration } from "./waf-migration.js";
import { routes as user } from "./user.js";
import { routes as zones } from "./zones.js";

export function allRoutes(): Route[] {
  return [...zones, ...pageShield, ...customHostnames, ...rulesets, ...logpush, ...wafMigration, ...user];
}
