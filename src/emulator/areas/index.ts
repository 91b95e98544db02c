// Every API area's routes in one list, for the router.
import type { Route } from "../types.js";
import { routes as customHostnames } from "./custom-hostnames/routes.js";
import { routes as logpush } from "./logpush/routes.js";
import { routes as pageShield } from "./page-shield/routes.js";
import { routes as rulesets } from "./rulesets/routes.js";
import { routes as wafMigration } from "./waf-migration/routes.js";
import { routes as user } from "./user/routes.js";
import { routes as zones } from "./zones/routes.js";

export function allRoutes(): Route[] {
  return [...zones, ...pageShield, ...customHostnames, ...rulesets, ...logpush, ...wafMigration, ...user];
}
