// The authorized-script inventory of a zone's payment pages (PCI DSS v4.0 6.4.3 and 11.6.1): which pages
// are in scope, and which scripts may run there, each with a written justification. Declared under
// the page_shield section (types in src/sections/page_shield/types.ts); read by `audit`, `inventory --merge` and
// `csp suggest --from-inventory`, never written to Cloudflare (plan and apply ignore it).
export type {
  DesiredAuthorizedScript as AuthorizedScript,
  DesiredScriptInventory as ScriptInventory,
} from "../sections/index.js";
