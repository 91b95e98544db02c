// Which of the permissions a configuration needs a token's policies grant (`GET user/tokens/{id}`).
// Pure: `zoneform whoami` asks, this module judges. Spec: docs/connecting.md, Permissions per section.
type Level = "Read" | "Edit";

export interface PermissionNeed {
  name: string;
  scope: "zone" | "account";
  plan: Level;
  apply: Level;
  sections: string[];
  on: string[];
}

const RANK: Record<Level | "none", number> = { none: 0, Read: 1, Edit: 2 };

function parseGroup(name: string): { name: string; level: Level } | undefined {
  const m = /^(.*?)[\s:]+(Read|Write|Edit)$/i.exec(name.trim());
  if (!m) return undefined;
  return { name: m[1]!.trim().toLowerCase(), level: /read/i.test(m[2]!) ? "Read" : "Edit" };
}

function resourceEntries(resources: unknown): Array<[string, unknown]> {
  if (!resources || typeof resources !== "object") return [];
  return Object.entries(resources as Record<string, unknown>).flatMap(([k, v]) => [
    [k, v] as [string, unknown],
    ...resourceEntries(v),
  ]);
}

export function coversTarget(resources: unknown, scope: "zone" | "account", target: string): boolean {
  return resourceEntries(resources).some(([key, value]) => {
    if (scope === "account")
      return key === `com.cloudflare.api.account.${target}` || key === "com.cloudflare.api.account.*";
    if (key === `com.cloudflare.api.account.zone.${target}` || key === "com.cloudflare.api.account.zone.*") return true;
    // A whole account ("*" as its value) includes its zones; zoneform cannot tell which account a zone is in.
    return /^com\.cloudflare\.api\.account\.([0-9a-f]{32}|\*)$/.test(key) && value === "*";
  });
}

export function levelHeld(
  policies: unknown[],
  need: Pick<PermissionNeed, "name" | "scope">,
  target: string,
): Level | "none" {
  let allowed: Level | "none" = "none";
  let denied: Level | "none" = "none";
  for (const p of policies) {
    if (!p || typeof p !== "object") continue;
    const policy = p as { effect?: unknown; resources?: unknown; permission_groups?: unknown };
    if (!coversTarget(policy.resources, need.scope, target) || !Array.isArray(policy.permission_groups)) continue;
    for (const g of policy.permission_groups) {
      const group = typeof g?.name === "string" ? parseGroup(g.name) : undefined;
      if (!group || group.name !== need.name.toLowerCase()) continue;
      if (policy.effect === "deny")
        denied = RANK[group.level] < RANK[denied] || denied === "none" ? group.level : denied;
      else allowed = RANK[group.level] > RANK[allowed] ? group.level : allowed;
    }
  }
  // Denying Read takes everything; denying Edit leaves Read.
  if (denied === "Read") return "none";
  if (denied === "Edit" && allowed === "Edit") return "Read";
  return allowed;
}

export function lacking(policies: unknown[], need: PermissionNeed): { plan: string[]; apply: string[] } {
  const held = need.on.map((t) => [t, RANK[levelHeld(policies, need, t)]] as const);
  return {
    plan: held.filter(([, r]) => r < RANK[need.plan]).map(([t]) => t),
    apply: held.filter(([, r]) => r < RANK[need.apply]).map(([t]) => t),
  };
}
