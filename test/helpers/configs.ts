// Configurations more than one suite plans, applies and compares (the CLI's and the library's saved
// plans must agree on them).
import { ZONE } from "./cli.js";

/** One zone: Page Shield on and one policy whose description and value take `${env:SUFFIX}`. */
export const CHECKOUT: { CONFIG: string; ENV: Record<string, string> } = {
  CONFIG: `version: 1
safety: { max_deletes: 0 }
zones:
  - zone_id: ${ZONE.com}
    name: example.com
    page_shield:
      enabled: true
      policies:
        - description: "Checkout \${env:SUFFIX}"
          action: log
          expression: 'http.request.uri.path contains "/checkout"'
          value: "script-src 'self' https://js.\${env:SUFFIX}.example"
`,
  ENV: { SUFFIX: "stripe" },
};
