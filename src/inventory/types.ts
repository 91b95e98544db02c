// The authorized-script inventory of a zone's payment pages (PCI DSS v4.0 6.4.3 and 11.6.1): which pages
// are in scope, and which scripts may run there, each with a written justification. Declared under
// `page_shield.script_inventory`; read by `audit`, `inventory --merge` and `csp suggest --from-inventory`,
// never written to Cloudflare (plan and apply ignore it).

export interface AuthorizedScript {
  /** An exact script URL, or a prefix ending in `*`. */
  url: string;
  justification: string;
  owner?: string;
  /** The reviewed version's hash (Page Shield's `hash`): another hash seen is a changed script. */
  hash?: string;
}

export interface ScriptInventory {
  /** Page patterns in scope, `host/path` with `*` at the start or end (Page Shield's page_url filter). */
  pages: string[];
  authorized: AuthorizedScript[];
}
