import type { UnmetCase } from "../unmet-helpers.js";

// A CA the file names, on a hostname whose answer states none and whose issuer tells nothing.
export const unmet: UnmetCase = async ({ emu, zone }) => {
  const h = emu
    .state()
    .zones.find((z) => z.id === zone)!
    .custom_hostnames.find((x) => x.hostname === "app.globex-com.example")!;
  h.ssl = { ...(h.ssl as Record<string, unknown>), certificate_authority: null };
  return {
    yaml: "custom_hostnames:\n  - hostname: app.globex-com.example\n    certificate_authority: ssl_com\n",
    says: "so zoneform cannot tell whether it is already ssl_com",
  };
};
