// The alert types a notification policy may name in the emulator: Cloudflare's list (src/cloudflare-alert-types.ts).
// Any other value is refused with 400.
export { CLOUDFLARE_ALERT_TYPES as ALERT_TYPES } from "../../../cloudflare-alert-types.js";
