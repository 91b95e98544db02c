// The authorized-script inventory's types, declared with the page_shield section.
// Spec: docs/pci-script-inventory.md. Never written to Cloudflare: plan and apply ignore it.
export type {
  DesiredAuthorizedScript as AuthorizedScript,
  DesiredScriptInventory as ScriptInventory,
} from "../sections/index.js";
