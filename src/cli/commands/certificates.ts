// `zoneform certificates --zone ID`: which custom hostnames use which certificate authority, flagging those still on
// the CA whose cross-signed chain was retired.
// Spec: docs/commands/certificates.md.
import type { Command } from "commander";
import { safeJson } from "../../safe-text.js";
import { fitFor } from "../width.js";
import { buildCertificateReport, customHostnamesApiPath, renderCertificateReportText } from "../../sections/index.js";
import { addReadCommandOptions, clientFromOptions, type ClientFlagValues } from "../client-options.js";
import { parseFormat } from "../planning.js";
import type { CommandContext } from "../command.js";
import { parseZoneRefs, resolveZoneRefs } from "../zone-ref.js";
import { type CommandTable, commandFromTable } from "../option-table.js";

interface CertificatesOptions extends ClientFlagValues {
  zone?: string[];
  format?: string;
}

const PAGE_SIZE = 50;
/** Version of the `--format json` document. */
export const CERTIFICATES_FORMAT_VERSION = 1;

const CERTIFICATES: CommandTable = {
  name: "certificates",
  description:
    "List the zones' custom hostnames with their certificate authority, SSL status and validation method, " +
    "flagging those still on lets_encrypt (cross-signed chain retired). A report: exit 0 even when " +
    "hostnames are flagged, 1 on error.",
  options: [{ flags: "--format <format>", description: "text | json", default: "text" }],
};

export function register(program: Command, ctx: CommandContext): void {
  const cmd = commandFromTable(program, CERTIFICATES);
  addReadCommandOptions(cmd, { verbose: "log every API call to stderr" });
  cmd.action(async (opts: CertificatesOptions) => {
    const { io } = ctx;
    const format = parseFormat(opts.format, ["text", "json"]);
    const zoneRefs = parseZoneRefs(opts.zone, "certificates");
    const client = clientFromOptions(opts, io);
    try {
      const zones = await resolveZoneRefs(client, zoneRefs);
      const listed = await Promise.all(
        zones.map(async (zoneId) => ({
          zone_id: zoneId,
          hostnames: await client.listAll<Record<string, unknown>>(customHostnamesApiPath(zoneId), {
            perPage: PAGE_SIZE,
          }),
        })),
      );
      const report = buildCertificateReport(listed);
      io.stdout.write(
        format === "json"
          ? `${safeJson({ format_version: CERTIFICATES_FORMAT_VERSION, ...report }, 2)}\n`
          : fitFor(io, io.stdout, renderCertificateReportText(report), { long: "break" }),
      );
    } finally {
      await client.close();
    }
  });
}
