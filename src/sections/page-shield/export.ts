// Page Shield settings and CSP policies, read with the resource kinds' own `read` so that the file and
// `plan` see the zone the same way. A policy the file cannot hold (an action the schema does not know,
// an empty field, a second policy of one description) is left out with a warning, and then `prune:
// false` keeps plan from deleting it.
import type { DesiredZone } from "../../model/desired.js";
import { pageShieldPolicies } from "./policies.js";
import { pageShieldSettings } from "./settings.js";
import type { SectionContext } from "../export-context.js";

const ACTIONS = new Set(["log", "allow"]);

export interface ExportedPolicy {
  description: string;
  action: string;
  expression: string;
  value: string;
  enabled?: false;
}

export interface ExportedPageShield {
  enabled?: boolean;
  use_cloudflare_reporting_endpoint?: boolean;
  use_connection_url_path?: boolean;
  prune?: false;
  policies: ExportedPolicy[];
}

export async function exportPageShield(ctx: SectionContext): Promise<ExportedPageShield> {
  const zone: DesiredZone = { zone_id: ctx.zoneId, page_shield: { prune: true, policies: [] } };
  const [settings, policies] = await Promise.all([pageShieldSettings.read(ctx.read, zone), pageShieldPolicies.read(ctx.read, zone)]);
  const out = {} as ExportedPageShield;
  for (const key of ["enabled", "use_cloudflare_reporting_endpoint", "use_connection_url_path"] as const) {
    const v = settings.live[key];
    if (typeof v === "boolean") out[key] = v;
  }
  out.policies = [];
  const seen = new Set<string>();
  let leftOut = 0;
  for (const p of policies.live) {
    const why =
      p.description === "" ? "it has no description (its identity)"
      : !ACTIONS.has(p.action) ? `its action ${JSON.stringify(p.action)} is not one the file format knows (log, allow)`
      : p.expression === "" || p.value === "" ? "its expression or value is empty"
      : undefined;
    if (p.description !== "" && seen.has(p.description)) {
      // plan deletes live duplicates of a description whatever prune says: say so rather than hide it.
      ctx.notes.warnings.push(`zone ${ctx.zoneId}: Page Shield policy ${p.id} has the same description as another ("${p.description}"); only the first is in the file, and plan will delete this duplicate`);
      continue;
    }
    if (why) {
      leftOut += 1;
      ctx.notes.warnings.push(`zone ${ctx.zoneId}: Page Shield policy ${p.id} left out of the file: ${why}`);
      continue;
    }
    seen.add(p.description);
    out.policies.push({
      description: p.description,
      action: p.action,
      expression: p.expression,
      value: p.value,
      ...(p.enabled === false ? { enabled: false as const } : {}),
    });
  }
  if (leftOut === 0) return out;
  ctx.notes.warnings.push(`zone ${ctx.zoneId}: page_shield.prune is false so that plan keeps the ${leftOut} policy(ies) left out`);
  // prune before the list, where a reader looks for it.
  const { policies: kept, ...settingsOnly } = out;
  return { ...settingsOnly, prune: false, policies: kept };
}
