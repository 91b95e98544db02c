// The alert types a notification policy may name (src/cloudflare-alert-types.ts).
export { CLOUDFLARE_ALERT_TYPES as ALERT_TYPES } from "../../../cloudflare-alert-types.js";
