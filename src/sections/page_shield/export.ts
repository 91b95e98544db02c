// Page Shield settings and CSP policies, read with the resource kinds' own `read` so that the file and `plan` see the
// zone the same way.
// Spec: docs/configuration.md, `page_shield`.
import type { ZoneWithPageShield } from "./types.js";
import { pageShieldPolicies, POLICY_ACTIONS } from "./policies.js";
import { pageShieldSettings } from "./settings.js";
import type { SectionContext } from "../export-context.js";

const ACTIONS = new Set<string>(POLICY_ACTIONS);

interface ExportedPolicy {
  id?: string;
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
  const zone: ZoneWithPageShield = { zone_id: ctx.zoneId, page_shield: { prune: true, policies: [] } };
  const [settings, policies] = await Promise.all([
    pageShieldSettings.read(ctx.read, zone),
    pageShieldPolicies.read(ctx.read, zone),
  ]);
  const out = {} as ExportedPageShield;
  for (const key of ["enabled", "use_cloudflare_reporting_endpoint", "use_connection_url_path"] as const) {
    const v = settings.live[key];
    if (typeof v === "boolean") out[key] = v;
  }
  out.policies = [];
  const count = new Map<string, number>();
  for (const p of policies.live) count.set(p.description, (count.get(p.description) ?? 0) + 1);
  let leftOut = 0;
  for (const p of policies.live) {
    const why =
      p.description === ""
        ? "it has no description (its identity)"
        : !ACTIONS.has(p.action)
          ? `its action ${JSON.stringify(p.action)} is not one the file format knows (${POLICY_ACTIONS.join(", ")})`
          : p.expression === "" || p.value === ""
            ? "its expression or value is empty"
            : undefined;
    if (why) {
      leftOut += 1;
      ctx.notes.warnings.push(`zone ${ctx.zoneId}: Page Shield policy ${p.id} left out of the file: ${why}`);
      continue;
    }
    out.policies.push({
      // The description repeats live: only the id tells plan which policy this entry is.
      ...((count.get(p.description) ?? 0) > 1 ? { id: p.id } : {}),
      description: p.description,
      action: p.action,
      expression: p.expression,
      value: p.value,
      ...(p.enabled === false ? { enabled: false as const } : {}),
    });
  }
  if (leftOut === 0) return out;
  ctx.notes.warnings.push(
    `zone ${ctx.zoneId}: page_shield.prune is false so that plan keeps the ${leftOut} policy(ies) left out`,
  );
  // prune before the list, where a reader looks for it.
  const { policies: kept, ...settingsOnly } = out;
  return { ...settingsOnly, prune: false, policies: kept };
}
