// `page_shield`: Page Shield settings and CSP policies (two kinds, settings applied first).
// Spec: docs/configuration.md, `page_shield`.
import { setOwn } from "../../data-record.js";
import { plural } from "../shared/words.js";
import type { AccountSection, Section } from "../types.js";
import { exportPageShield } from "./export.js";
import { notificationPolicies } from "./notifications.js";
import { exportNotifications } from "./notifications-export.js";
import { NOTIFICATION_RULES, resolveZoneRef } from "./notification-rules.js";
import { pageShieldPolicies } from "./policies.js";
import { PAGE_SHIELD_RULES } from "./rules.js";
import { pageShieldSettings } from "./settings.js";
import { inventoryLines, scriptInventoryOf } from "./script-inventory.js";
import type {
  DesiredNotification,
  DesiredPageShield,
  DesiredPolicy,
  NotificationsAccount,
  NotificationsFileAccount,
  PageShieldFileZone,
  PageShieldZone,
} from "./types.js";

export type * from "./types.js";
export {
  isPrefix,
  pagePatternProblem,
  urlMatches,
} from "./inventory-match.js";
export {
  hostPartProblem,
  hostSource,
  serializePolicy,
} from "./csp-grammar.js";
export { cspAtLeastAsStrict, type CspJudgement } from "./csp-model.js";
export { invisibleCharacters, urlParts, withoutInvisible } from "./url-parts.js";
export {
  isInsecurePageUrl,
  isSessionHeader,
  pageUrlProblem,
  SECURITY_HEADERS,
} from "./page-headers.js";
export { isTodoJustification, TODO_JUSTIFICATION } from "./inventory-todo.js";
// The Page Shield alerts an account holds, for audit's evidence.
export {
  isPageShieldAlert,
  PAGE_SHIELD_ALERTS,
  readNotificationPolicies,
  type LiveNotification,
} from "./alerting.js";
export {
  pageShieldApiPath,
  declaredPoliciesOf,
  POLICIES_PATH,
  policiesPointer,
  SCRIPT_INVENTORY_HEADERS_PATH,
  SCRIPT_INVENTORY_KEYS,
  SCRIPT_INVENTORY_PATH,
  scriptInventoryIn,
  scriptInventoryOf,
  scriptInventoryPointer,
} from "./script-inventory.js";

const accountPart: AccountSection<NotificationsAccount, NotificationsFileAccount> = {
  key: "notifications",
  kinds: [notificationPolicies],
  normalize(entry, out, file) {
    if (!entry.notifications) return;
    out.notifications = entry.notifications.map((n): DesiredNotification => {
      const zones = n.zones ? [...new Set(n.zones.map((z) => resolveZoneRef(z, file.zones) ?? z))] : undefined;
      return {
        ...(n.id !== undefined ? { id: n.id.toLowerCase() } : {}),
        name: n.name,
        alert_type: n.alert_type,
        enabled: n.enabled ?? true,
        ...(zones ? { zones } : {}),
        email: [...new Set(n.email ?? [])],
        webhooks: [...new Set(n.webhooks ?? [])],
      };
    });
  },
  export: async (ctx) => exportNotifications(ctx),
  summary: (account) =>
    account.notifications ? [`notifications (${plural(account.notifications.length, "policy", "policies")})`] : [],
  permissions: [
    {
      name: "Notifications",
      scope: "account",
      read: "Read",
      write: "Edit",
      paths: [/^accounts\/[^/]+\/alerting/],
      label: "accounts[].notifications",
    },
  ],
};

export const pageShield: Section<PageShieldZone, PageShieldFileZone> & {
  account: AccountSection<NotificationsAccount, NotificationsFileAccount>;
} = {
  name: "page_shield",
  path: "page_shield",
  kinds: [pageShieldSettings, pageShieldPolicies],
  owns: (zone) => zone.page_shield !== undefined,
  normalize(file, out) {
    const ps = file.page_shield;
    if (!ps) return;
    const page: DesiredPageShield = { prune: ps.prune ?? true };
    if (ps.enabled !== undefined) page.enabled = ps.enabled;
    if (ps.use_cloudflare_reporting_endpoint !== undefined)
      page.use_cloudflare_reporting_endpoint = ps.use_cloudflare_reporting_endpoint;
    if (ps.use_connection_url_path !== undefined) page.use_connection_url_path = ps.use_connection_url_path;
    if (ps.policies) {
      page.policies = ps.policies.map(
        (p): DesiredPolicy => ({
          ...(p.id !== undefined ? { id: p.id } : {}),
          description: p.description,
          action: p.action,
          expression: p.expression,
          value: p.value,
          enabled: p.enabled ?? true,
        }),
      );
    }
    // The script inventory is declared here but never written to Cloudflare.
    const inv = ps.script_inventory;
    if (inv) {
      page.script_inventory = {
        pages: [...inv.pages],
        authorized: inv.authorized.map((a) => ({
          url: a.url,
          justification: a.justification,
          ...(a.owner !== undefined ? { owner: a.owner } : {}),
          ...(a.hash !== undefined ? { hash: a.hash.toLowerCase() } : {}),
        })),
      };
      if (inv.headers) {
        // Header names are the file's keys: each an own property, whatever it is (`__proto__` included).
        const pinned: Record<string, string> = {};
        for (const [name, value] of Object.entries(inv.headers.pinned)) setOwn(pinned, name, value);
        page.script_inventory.headers = { urls: [...inv.headers.urls], pinned };
      }
    }
    out.page_shield = page;
  },
  export: async (ctx) => ({ page_shield: await exportPageShield(ctx) }),
  summary(zone) {
    const ps = zone.page_shield;
    if (!ps) return [];
    return [
      ps.policies
        ? `page_shield (${plural(ps.policies.length, "policy", "policies")}${ps.prune ? "" : ", no prune"})`
        : "page_shield",
    ];
  },
  permissions: [
    { name: "Page Shield", scope: "zone", read: "Read", write: "Edit", paths: [/^zones\/[^/]+\/page_shield/] },
  ],
  ids: ["policies", "scripts", "connections", "cookies"].map((collection) => ({
    collection,
    id: /^([0-9a-f]{32}|phases)$/,
  })),
  rules: [...PAGE_SHIELD_RULES, ...NOTIFICATION_RULES],
  account: accountPart,
  auditChecks: (zone) => {
    const inventory = scriptInventoryOf(zone);
    return inventory && inventoryLines(inventory);
  },
};
