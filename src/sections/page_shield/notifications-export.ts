// An account's Page Shield alerts in the file's shape.
// Spec: docs/configuration.md, `notifications`.
import { foreignScope, readNotificationPolicies, isPageShieldAlert, type LiveNotification } from "./alerting.js";
import type { SectionContext } from "../types.js";

export interface ExportedNotification {
  id?: string;
  name: string;
  alert_type: string;
  enabled?: false;
  zones?: string[];
  email?: string[];
  webhooks?: string[];
}

/** What of a live policy the file cannot say (kept as live by every PUT). */
function unmanaged(p: LiveNotification): string[] {
  const out: string[] = [];
  for (const k of ["description", "alert_interval"])
    if (p.writable[k] !== undefined && p.writable[k] !== "") out.push(k);
  const mechanisms = Object.keys((p.writable.mechanisms as Record<string, unknown> | undefined) ?? {});
  out.push(...mechanisms.filter((m) => m !== "email" && m !== "webhooks").map((m) => `mechanisms.${m}`));
  const filters = Object.keys((p.writable.filters as Record<string, unknown> | undefined) ?? {});
  out.push(...filters.filter((f) => f !== "zones").map((f) => `filters.${f}`));
  return out;
}

export async function exportNotifications(
  ctx: SectionContext,
): Promise<{ notifications: ExportedNotification[]; prune?: false }> {
  const live = (await readNotificationPolicies(ctx.read.client, ctx.zoneId)).filter((p) =>
    isPageShieldAlert(p.alert_type),
  );
  const hints = new Map<string, number>();
  for (const p of live)
    hints.set(JSON.stringify([p.name, p.alert_type]), (hints.get(JSON.stringify([p.name, p.alert_type])) ?? 0) + 1);
  // The zones the export writes beside the account: a policy scoped to others is pinned.
  const written = new Set(ctx.read.desired.zones.map((z) => z.zone_id));
  const out: ExportedNotification[] = [];
  let skipped = false;
  for (const p of live) {
    if (p.name.trim() === "") {
      ctx.notes.warnings.push(
        `notification policy ${p.id} (${p.alert_type}) has no name and is not exported; prune: false keeps it`,
      );
      skipped = true;
      continue;
    }
    const repeated = (hints.get(JSON.stringify([p.name, p.alert_type])) ?? 0) > 1;
    const pinned = repeated || foreignScope(p, written) !== undefined;
    const kept = unmanaged(p);
    if (kept.length > 0)
      ctx.notes.remarks.push(
        `notification policy ${JSON.stringify(p.name)}: ${kept.join(", ")} kept as live (not in the file)`,
      );
    out.push({
      ...(pinned ? { id: p.id } : {}),
      name: p.name,
      alert_type: p.alert_type,
      ...(p.enabled ? {} : { enabled: false as const }),
      ...(p.zones !== undefined ? { zones: [...p.zones] } : {}),
      ...(p.email.length > 0 ? { email: [...p.email] } : {}),
      ...(p.webhooks.length > 0 ? { webhooks: [...p.webhooks] } : {}),
    });
  }
  return { notifications: out, ...(skipped ? { prune: false as const } : {}) };
}
