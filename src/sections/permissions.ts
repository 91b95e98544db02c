// Which token permission a call needs, and which a configuration needs, from the sections' own declarations.
// Spec: docs/architecture.md, Sections.
import type { PermissionNeed } from "../cloudflare/index.js";
import type { DesiredState } from "./registry.js";
import { ACCOUNT_SECTIONS, SECTIONS } from "./registry.js";
import type { PermissionLevel, SectionPermission } from "./types.js";

/** Every zone's name and plan (`GET zones/{id}`): not a section's, needed by all. */
const ZONE: SectionPermission = {
  name: "Zone",
  scope: "zone",
  read: "Read",
  write: "Edit",
  paths: [/^zones\/[^/]+$/],
  label: "zone (name and plan)",
  readOnly: true,
};

const ALL: ReadonlyArray<SectionPermission> = [
  ZONE,
  ...SECTIONS.flatMap((s) => s.permissions),
  ...ACCOUNT_SECTIONS.flatMap((s) => s.permissions),
];

interface RequiredPermission {
  name: string;
  level: PermissionLevel;
  scope: "zone" | "account";
}

/** Which token permission a call needs (README "Quick start"), or undefined when zoneform cannot say. */
function requiredPermission(method: string, path: string): RequiredPermission | undefined {
  let best: { p: SectionPermission; length: number } | undefined;
  for (const p of ALL) {
    for (const re of p.paths) {
      const m = re.exec(path);
      if (m && (!best || m[0].length > best.length)) best = { p, length: m[0].length };
    }
  }
  if (!best) return undefined;
  return { name: best.p.name, level: method === "GET" ? best.p.read : best.p.write, scope: best.p.scope };
}

export function permissionHint(method: string, path: string): string | undefined {
  const p = requiredPermission(method, path);
  return p && `the "${p.name}: ${p.level}" permission on the ${p.scope}`;
}

const RANK: Record<PermissionLevel, number> = { Read: 1, Edit: 2 };
const higher = (a: PermissionLevel, b: PermissionLevel): PermissionLevel => (RANK[a] >= RANK[b] ? a : b);

/** The permissions the file's sections need, one entry per permission, in the order first needed. */
export function permissionsNeeded(desired: DesiredState): PermissionNeed[] {
  const needs = new Map<string, PermissionNeed>();
  for (const zone of desired.zones) {
    const owned = SECTIONS.filter((s) => s.owns(zone)).flatMap((s) =>
      s.permissions.map((p) => ({ p, section: p.label ?? s.path })),
    );
    for (const { p, section } of [{ p: ZONE, section: ZONE.label! }, ...owned]) {
      if (p.needed && !p.needed(desired)) continue;
      const apply = p.readOnly ? p.read : higher(p.read, p.write);
      const key = `${p.scope}:${p.name}`;
      const target = p.scope === "account" ? desired.account_id! : zone.zone_id;
      const need = needs.get(key) ?? { name: p.name, scope: p.scope, plan: p.read, apply, sections: [], on: [] };
      need.plan = higher(need.plan, p.read);
      need.apply = higher(need.apply, apply);
      if (!need.sections.includes(section)) need.sections.push(section);
      if (!need.on.includes(target)) need.on.push(target);
      needs.set(key, need);
    }
  }
  // Each entry of `accounts:`: the permissions of the lists it holds, on that account.
  for (const account of desired.accounts ?? []) {
    for (const part of ACCOUNT_SECTIONS.filter(
      (s) => (account as unknown as Record<string, unknown>)[s.key] !== undefined,
    )) {
      for (const p of part.permissions) {
        const key = `${p.scope}:${p.name}`;
        const section = p.label ?? `accounts[].${part.key}`;
        const apply = p.readOnly ? p.read : higher(p.read, p.write);
        const need = needs.get(key) ?? { name: p.name, scope: p.scope, plan: p.read, apply, sections: [], on: [] };
        need.plan = higher(need.plan, p.read);
        need.apply = higher(need.apply, apply);
        if (!need.sections.includes(section)) need.sections.push(section);
        if (!need.on.includes(account.account_id)) need.on.push(account.account_id);
        needs.set(key, need);
      }
    }
  }
  return [...needs.values()];
}
