// What audit checks of each zone.
import { diffArrays } from "diff/lib/diff/array.js";
import type { ZonePlan } from "../../model/index.js";
import { printable } from "../../safe-text.js";
import { unitName } from "../units.js";

export const AUDIT_TITLE = "script_inventory: checked by audit, not written to Cloudflare";

export function auditDiff(z: ZonePlan): Array<{ sign: "+" | "-"; line: string }> | undefined {
  if (!z.audit || z.audit.base === undefined) return undefined;
  return diffArrays(z.audit.base, z.audit.lines).flatMap((p) =>
    p.added || p.removed ? p.value.map((line) => ({ sign: p.added ? ("+" as const) : ("-" as const), line })) : [],
  );
}

/** The zones whose checks differ from the base configuration's. */
export function auditChanged(zones: readonly ZonePlan[]): ZonePlan[] {
  return zones.filter((z) => (auditDiff(z)?.length ?? 0) > 0);
}

export function auditListing(zones: readonly ZonePlan[]): string[] {
  return zones.flatMap((z) => {
    if (!z.audit || z.audit.base !== undefined || z.audit.lines.length === 0) return [];
    const fetched = z.audit.lines.filter((l) => l.startsWith("page fetched"));
    const pages = fetched.map((l) => l.slice(l.indexOf(":") + 2)).join(", ");
    return [
      printable(
        `Checked by audit, not written to Cloudflare: ${unitName(z)}'s script inventory, ` +
          `${z.audit.lines.length} line(s)${fetched.length > 0 ? `; pages it fetches: ${pages}` : ""} ` +
          "(plan --base BASE shows what a change adds)",
      ),
    ];
  });
}
